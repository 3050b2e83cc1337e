package nice

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestProcessEveryThread renices a child Go program and reads back the
// niceness of each of its threads (field 19 of /proc/pid/task/tid/stat).
// The child shares this test's session, so its session's group (where the
// kernel has them) must keep its niceness: it is this test's own group.
func TestProcessEveryThread(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("threads are listed from /proc")
	}
	groupBefore := autogroup(t, os.Getpid())
	cmd, pid := child(t, false)
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if err := Process(pid, 7); err != nil {
		t.Fatal(err)
	}
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) < 2 {
		t.Fatalf("the child has %d threads; a Go program has several", len(tasks))
	}
	for _, task := range tasks {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + task.Name() + "/stat")
		if err != nil {
			t.Fatal(err)
		}
		// Fields after the command name, which is in parentheses.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
		if ni := f[16]; ni != "7" { // field 19 of the whole line
			t.Errorf("thread %s has niceness %s, want 7", task.Name(), ni)
		}
	}
	if got := autogroup(t, os.Getpid()); got != groupBefore {
		t.Errorf("this session's group went from %q to %q", groupBefore, got)
	}
}

// TestProcessApartGroup: a process started Apart has a session of its
// own, whose group gets the niceness too.
func TestProcessApartGroup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("groups are read from /proc")
	}
	if _, err := os.Stat("/proc/self/autogroup"); err != nil {
		t.Skip("this kernel has no session groups (autogroup)")
	}
	groupBefore := autogroup(t, os.Getpid())
	cmd, pid := child(t, true)
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if err := Process(pid, 7); err != nil {
		t.Fatal(err)
	}
	if got := autogroup(t, pid); !strings.HasSuffix(got, " nice 7") {
		t.Errorf("the child's group: %q, want nice 7", got)
	}
	if got := autogroup(t, os.Getpid()); got != groupBefore {
		t.Errorf("this session's group went from %q to %q", groupBefore, got)
	}
}

// child starts this test binary again as a process that waits to be
// killed (apart: in a session of its own).
func child(t *testing.T, apart bool) (*exec.Cmd, int) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "NICE_TEST_CHILD=1")
	if apart {
		Apart(cmd)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	if _, err := out.Read(buf); err != nil {
		t.Fatal(err)
	}
	return cmd, cmd.Process.Pid
}

// TestMain is also the child of the tests above.
func TestMain(m *testing.M) {
	if os.Getenv("NICE_TEST_CHILD") == "1" {
		os.Stdout.Write([]byte("ready\n"))
		select {} // wait to be killed; the runtime has its threads
	}
	os.Exit(m.Run())
}

// autogroup is /proc/pid/autogroup ("/autogroup-N nice K"), or "" where
// the kernel has none.
func autogroup(t *testing.T, pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/autogroup")
	if os.IsNotExist(err) {
		return ""
	} else if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func TestProcessLeavesZeroAlone(t *testing.T) {
	if err := Process(os.Getpid(), 0); err != nil {
		t.Fatal(err)
	}
}

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
func TestProcessEveryThread(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("threads are listed from /proc")
	}
	if os.Getenv("NICE_TEST_CHILD") == "1" {
		os.Stdout.Write([]byte("ready\n"))
		select {} // wait to be killed; the runtime has its threads
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestProcessEveryThread$")
	cmd.Env = append(os.Environ(), "NICE_TEST_CHILD=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	buf := make([]byte, 6)
	if _, err := out.Read(buf); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
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
}

func TestProcessLeavesZeroAlone(t *testing.T) {
	if err := Process(os.Getpid(), 0); err != nil {
		t.Fatal(err)
	}
}

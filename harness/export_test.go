package harness

// BrowsersStarted is how many browser processes of the engine bs started,
// for the tests of the package harness_test.
func BrowsersStarted(bs *Browsers, engine string) int { return bs.starts(engine) }

package sieve

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	// Loading a model logs a line at the info level; dozens of tests load
	// models, and the lines would bury the test output.
	if err := SetLogLevel("warn"); err != nil {
		fmt.Fprintln(os.Stderr, "SetLogLevel:", err)
		os.Exit(1)
	}
	code := m.Run()
	if searchIndexOnce.root != "" {
		os.RemoveAll(searchIndexOnce.root)
	}
	os.Exit(code)
}

func TestSetLogLevel(t *testing.T) {
	if err := SetLogLevel("loud"); !isCode(err, CodeInvalidArgument) {
		t.Fatalf("SetLogLevel of an unknown level: %v", err)
	}
	if err := SetLogLevel("warn"); err != nil {
		t.Fatal(err)
	}
}

// The library's version is the one its pkg-config file (which the build
// linked through) declares.
func TestVersions(t *testing.T) {
	if ONNXRuntimeVersion() == "" {
		t.Fatal("ONNXRuntimeVersion() is empty")
	}
	out, err := exec.Command("pkg-config", "--modversion", "sieve").Output()
	if err != nil {
		t.Skipf("pkg-config --modversion sieve: %v", err)
	}
	if want := strings.TrimSpace(string(out)); Version() != want {
		t.Fatalf("Version() = %q, sieve.pc says %q", Version(), want)
	}
}

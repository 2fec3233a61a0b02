package till_test

import (
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The README's walk-through is one program split across its go blocks; it must build, with this
// library as a merchant's go.mod takes it (a replace of the module path by a local directory).
func TestReadmeProgramBuilds(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to build the README's program with")
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok1 := strings.Cut(string(readme), "<!-- program: start")
	program, _, ok2 := strings.Cut(rest, "<!-- program: end -->")
	if !ok1 || !ok2 {
		t.Fatal("README.md has no program: start … program: end markers")
	}
	var blocks []string
	for _, block := range strings.Split(program, "```go\n")[1:] {
		code, _, ok := strings.Cut(block, "```")
		if !ok {
			t.Fatal("an unclosed go block")
		}
		blocks = append(blocks, code)
	}
	src := strings.Join(blocks, "\n")
	if !strings.HasPrefix(src, "package main") {
		t.Fatalf("the program does not start with package main:\n%s", src)
	}

	if formatted, err := format.Source([]byte(src)); err != nil || string(formatted) != src {
		t.Errorf("the README's program is not gofmt-formatted (%v); gofmt gives:\n%s", err, formatted)
	}

	self, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module shop\n\ngo 1.21\n\nrequire github.com/till-payments/till/clients/go v0.1.0\n\n" +
		"replace github.com/till-payments/till/clients/go => " + self + "\n"
	for name, content := range map[string]string{"go.mod": gomod, "main.go": src} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"vet", "."}, {"build", "-o", os.DevNull, "."}} {
		cmd := exec.Command(goTool, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s of the README's program: %v\n%s\n%s", strings.Join(args, " "), err, out, src)
		}
	}
}

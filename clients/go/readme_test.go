package till_test

import (
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The README's walk-through is one program split across its go blocks; it must build, with this
// library as a merchant's go.mod takes it (a replace of the module path by a local directory).
func TestReadmeProgramBuilds(t *testing.T) {
	goTool, readme := goAndReadme(t)
	_, rest, ok1 := strings.Cut(readme, "<!-- program: start")
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

	buildProgram(t, goTool, "the README's program", src)
}

// goAndReadme is the go command to build with (the test is skipped without one) and README.md.
func goAndReadme(t *testing.T) (string, string) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH to build the README's code with")
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	return goTool, string(readme)
}

// buildProgram vets and builds src as main.go of a module that takes this library as a merchant's
// go.mod does before it is published: a replace of the module path by a local directory.
func buildProgram(t *testing.T, goTool, what, src string) {
	t.Helper()
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
			t.Fatalf("go %s of %s: %v\n%s\n%s", strings.Join(args, " "), what, err, out, numbered(src))
		}
	}
}

func numbered(src string) string {
	lines := strings.Split(src, "\n")
	for i := range lines {
		lines[i] = fmt.Sprintf("%4d  %s", i+1, lines[i])
	}
	return strings.Join(lines, "\n")
}

// What the README's fragments take from the code around them, as a merchant's code would have it.
const fragmentPrelude = `package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	till "github.com/till-payments/till/clients/go"
)

var _, _, _, _, _, _ = context.Background, errors.Is, fmt.Sprint, log.Print, os.Getenv, time.Now

func main() {}
`

var goBlock = regexp.MustCompile("(?s)\n```go\n(.*?)```")

// Every other go block of the README compiles too: a whole program (Try it) as it is, and each
// fragment as the body of a function given the names fragments take from their surroundings (ctx,
// client, recordID, …), with every variable it declares then used, as code after it would.
func TestReadmeSnippetsCompile(t *testing.T) {
	goTool, readme := goAndReadme(t)
	before, rest, _ := strings.Cut(readme, "<!-- program: start")
	_, after, _ := strings.Cut(rest, "<!-- program: end -->")
	var fragments []string
	programs := 0
	for _, m := range goBlock.FindAllStringSubmatch(before+after, -1) {
		block := m[1]
		if strings.HasPrefix(block, "package main") {
			programs++
			buildProgram(t, goTool, "a program of the README", block)
			continue
		}
		fragments = append(fragments, block)
	}
	if programs == 0 || len(fragments) < 6 {
		t.Fatalf("found %d programs and %d fragments in README.md outside the shop program", programs, len(fragments))
	}
	src := fragmentPrelude
	for i, block := range fragments {
		// A fragment's own import of this library is the prelude's.
		block = regexp.MustCompile(`(?m)^import till "github.com/till-payments/till/clients/go"\n`).ReplaceAllString(block, "")
		body, err := usingDeclared(block)
		if err != nil {
			t.Fatalf("README go block %d does not parse: %v\n%s", i+1, err, block)
		}
		src += fmt.Sprintf("\n// README go block %d\nfunc fragment%d(ctx context.Context, client *till.Client, recordID, orderID, id, refundID string) error {\n\t{\n%s\t}\n\treturn nil\n}\n", i+1, i+1, body)
	}
	buildProgram(t, goTool, "the README's fragments", src)
}

// usingDeclared returns the fragment followed by `_ = name` for each variable it declares at its
// top level, so that a fragment ending on a declaration compiles.
func usingDeclared(block string) (string, error) {
	file, err := parser.ParseFile(token.NewFileSet(), "", "package p\nfunc f() {\n"+block+"\n}", 0)
	if err != nil {
		return "", err
	}
	var names []string
	for _, stmt := range file.Decls[0].(*ast.FuncDecl).Body.List {
		if assign, ok := stmt.(*ast.AssignStmt); ok && assign.Tok == token.DEFINE {
			for _, lhs := range assign.Lhs {
				if ident, ok := lhs.(*ast.Ident); ok && ident.Name != "_" {
					names = append(names, ident.Name)
				}
			}
		}
	}
	for _, name := range names {
		block += "_ = " + name + "\n"
	}
	return block, nil
}

// Package lazyre holds regular expressions compiled the first time they are
// used instead of at package initialisation: every readme2demo command
// starts faster (a `readme2demo parse` of a short transcript compiled some
// 55 million instructions' worth of the planner's and the redactor's
// expressions before, and used none of the planner's). It is the pattern of
// the Go command's own internal/lazyregexp, which cannot be imported.
package lazyre

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on first use. Its methods are
// those of regexp.Regexp that this project calls.
type Regexp struct {
	expr string
	re   func() *regexp.Regexp
}

var (
	mu  sync.Mutex
	all []*Regexp
)

// New returns expr, to be compiled (regexp.MustCompile) when first used.
// CompileAll compiles every one made so far, for tests.
func New(expr string) *Regexp {
	r := &Regexp{expr: expr, re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
	mu.Lock()
	all = append(all, r)
	mu.Unlock()
	return r
}

// CompileAll compiles every expression made with New so far and returns
// the first that does not compile: a test of a package calls it, so a bad
// expression fails its tests, not a later run.
func CompileAll() error {
	mu.Lock()
	rs := append([]*Regexp(nil), all...)
	mu.Unlock()
	for _, r := range rs {
		if _, err := regexp.Compile(r.expr); err != nil {
			return err
		}
	}
	return nil
}

// Re is the compiled expression.
func (r *Regexp) Re() *regexp.Regexp { return r.re() }

// String is the source text.
func (r *Regexp) String() string { return r.expr }

func (r *Regexp) MatchString(s string) bool { return r.re().MatchString(s) }
func (r *Regexp) Match(b []byte) bool       { return r.re().Match(b) }
func (r *Regexp) FindString(s string) string {
	return r.re().FindString(s)
}
func (r *Regexp) FindStringIndex(s string) []int { return r.re().FindStringIndex(s) }
func (r *Regexp) FindStringSubmatch(s string) []string {
	return r.re().FindStringSubmatch(s)
}
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.re().FindStringSubmatchIndex(s)
}
func (r *Regexp) FindSubmatch(b []byte) [][]byte { return r.re().FindSubmatch(b) }
func (r *Regexp) FindAllString(s string, n int) []string {
	return r.re().FindAllString(s, n)
}
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return r.re().FindAllStringIndex(s, n)
}
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.re().FindAllStringSubmatch(s, n)
}
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.re().FindAllStringSubmatchIndex(s, n)
}
func (r *Regexp) FindAllSubmatch(b []byte, n int) [][][]byte {
	return r.re().FindAllSubmatch(b, n)
}
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.re().ReplaceAllString(src, repl)
}
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.re().ReplaceAllStringFunc(src, repl)
}
func (r *Regexp) Split(s string, n int) []string { return r.re().Split(s, n) }

// Groups returns the capture groups that matched something, of every
// match in s, in order: what an expression of alternatives, each naming
// its subject in a group of its own, found.
func (r *Regexp) Groups(s string) []string {
	var out []string
	for _, m := range r.re().FindAllStringSubmatch(s, -1) {
		for _, g := range m[1:] {
			if g != "" {
				out = append(out, g)
			}
		}
	}
	return out
}

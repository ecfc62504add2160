// Command corpus adds a README of a real repository to the real-README
// corpus (testdata/readmes/): it copies the README unchanged and writes
// the repository archive the plan reads beside it (plan.ArchiveDir: the
// checkout's listing and manifests).
//
//	go run ./scripts/corpus -slug OWNER/NAME -checkout DIR -readme README.md -out testdata/readmes/corpus/NAME
//
// It writes OUT.EXT (the README, EXT its own extension: .md, .rst, .adoc,
// .markdown, .txt; .md for a README without one) and OUT.repo, and prints
// both paths. It never plans the README: labels are written before the
// plan sees a README (docs/engines/labelling.md).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/readme2demo/readme2demo/internal/plan"
)

func main() {
	slug := flag.String("slug", "", "the repository's owner/name")
	dir := flag.String("checkout", "", "the repository's checkout")
	readme := flag.String("readme", "README.md", "the README's path in the checkout")
	out := flag.String("out", "", "the corpus path to write, without extension (testdata/readmes/corpus/NAME)")
	flag.Parse()
	if err := run(*slug, *dir, *readme, *out); err != nil {
		fmt.Fprintln(os.Stderr, "corpus:", err)
		os.Exit(1)
	}
}

func run(slug, dir, readme, out string) error {
	if slug == "" || dir == "" || out == "" || !strings.Contains(slug, "/") {
		return fmt.Errorf("want -slug OWNER/NAME, -checkout DIR and -out PATH (see the command's comment)")
	}
	src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(readme)))
	if err != nil {
		return fmt.Errorf("read README: %w", err)
	}
	ext := strings.ToLower(filepath.Ext(readme))
	switch ext {
	case ".md", ".rst", ".adoc", ".asciidoc", ".markdown", ".txt", ".mkd", ".org":
	default:
		ext = ".md"
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("make corpus directory: %w", err)
	}
	if err := os.WriteFile(out+ext, src, 0o644); err != nil {
		return fmt.Errorf("write README copy: %w", err)
	}
	if err := os.WriteFile(out+".repo", plan.ArchiveDir(dir, slug), 0o644); err != nil {
		return fmt.Errorf("write repository archive: %w", err)
	}
	fmt.Println(out + ext)
	fmt.Println(out + ".repo")
	return nil
}

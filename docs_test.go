package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	mdLink     = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeSpan   = regexp.MustCompile("`[^`]*`")
	mdHeading  = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	slugRemove = regexp.MustCompile(`[^\p{L}\p{N}\s_-]`)
)

// The README and docs/ stand alone: every relative link resolves to a file
// (and heading) inside this repository, and nothing names a file outside it.
func TestDocumentationLinksResolveInsideTheRepository(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"README.md"}, files...)
	if len(files) < 5 {
		t.Fatalf("want README.md and the docs/ pages, found %v", files)
	}
	checked := 0
	for _, file := range files {
		links, text := markdownLinks(t, file)
		for _, bad := range []string{"../shared", "CONTRACT.md"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s names %q, which is not in the repository", file, bad)
			}
		}
		for _, link := range links {
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue // the web, not the clone
			}
			checked++
			path, frag, _ := strings.Cut(link, "#")
			target := file
			if path != "" {
				if filepath.IsAbs(path) {
					t.Errorf("%s: link %q is absolute; make it relative to the file", file, link)
					continue
				}
				target = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
			}
			abs, _ := filepath.Abs(target)
			if rel, err := filepath.Rel(root, abs); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				t.Errorf("%s: link %q leaves the repository", file, link)
				continue
			}
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s: link %q: %v", file, link, err)
				continue
			}
			if frag != "" && strings.HasSuffix(target, ".md") {
				if !headingAnchors(t, target)[frag] {
					t.Errorf("%s: link %q: no heading with anchor #%s in %s", file, link, frag, target)
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d relative links checked: is the link pattern still right?", checked)
	}
}

// markdownLinks returns the link targets outside code, and the whole text.
func markdownLinks(t *testing.T, file string) ([]string, string) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var links []string
	fenced := false
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			links = append(links, m[1])
		}
	}
	return links, string(raw)
}

// headingAnchors returns the anchors GitHub gives the headings of a Markdown file.
func headingAnchors(t *testing.T, file string) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		m := mdHeading.FindStringSubmatch(line)
		if fenced || m == nil {
			continue
		}
		slug := strings.ReplaceAll(slugRemove.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")
		if n := seen[slug]; n > 0 {
			anchors[slug+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

var (
	hexToken = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)
	runDate  = regexp.MustCompile(`\b20\d\d-\d\d-\d\d\b(?:[^T]|$)`)
	journal  = regexp.MustCompile(`(?i)tried and dropped|\b(?:first|second|third|fourth|fifth|later|earlier) pass\b`)
)

// The README and docs/ say what is true now: no commit hash, no date of a
// run, no account of passes or of what was tried and dropped. History is
// git's; figures are BENCHMARKS.md's. (A timestamp in an example, such as
// 2026-11-21T19:51:27.123Z, is a value, not a date of a run.)
func TestDocumentationIsNotAJournal(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"README.md", "BENCHMARKS.md"}, files...)
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(raw), "\n") {
			for _, tok := range hexToken.FindAllString(line, -1) {
				if strings.ContainsAny(tok, "0123456789") && strings.ContainsAny(tok, "abcdef") {
					t.Errorf("%s:%d: %q looks like a commit hash: %s", file, n+1, tok, line)
				}
			}
			if m := runDate.FindString(line); m != "" {
				t.Errorf("%s:%d: a date (%q) that is not a timestamp value: %s", file, n+1, strings.TrimSpace(m), line)
			}
			if m := journal.FindString(line); m != "" {
				t.Errorf("%s:%d: %q is a journal's, not a reference's: %s", file, n+1, m, line)
			}
		}
	}
}

// The README's test command is what CI runs: .ci/run ends by running
// exactly the second command of the README's first block.
func TestREADMETestCommandIsCIs(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	lines := strings.Split(strings.TrimSpace(block), "\n")
	if !ok || len(lines) != 2 || !strings.HasPrefix(lines[0], "go run .") {
		t.Fatalf("the README's first block is not the two commands:\n%s", block)
	}
	command, _, _ := strings.Cut(lines[1], "#")
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	ciLines := strings.Split(strings.TrimSpace(string(ci)), "\n")
	if last := strings.TrimSpace(ciLines[len(ciLines)-1]); last != strings.TrimSpace(command) {
		t.Fatalf(".ci/run ends with %q, the README's test command is %q", last, strings.TrimSpace(command))
	}
}

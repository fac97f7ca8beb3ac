package docs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wrapcheck/wrapcheck/internal/testenv"
)

// workflowStep is one step of a GitHub Actions job: its if condition,
// its environment and its run script.
type workflowStep struct {
	id, cond, run string
	env           map[string]string
}

// workflowSteps reads the steps of the job in the first yaml block of doc
// after the heading: the subset of YAML the documented workflows use
// ("- " items with id, if, env and run, run as one line or a "|" block).
func workflowSteps(t *testing.T, doc, heading string) []workflowStep {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, doc))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i := strings.Index(text, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("%s: no heading %q", doc, heading)
	}
	text = text[i:]
	start := strings.Index(text, "```yaml\n")
	if start < 0 {
		t.Fatalf("%s: no yaml block after %q", doc, heading)
	}
	text = text[start+len("```yaml\n"):]
	text = text[:strings.Index(text, "```")]
	var steps []workflowStep
	lines := strings.Split(text, "\n")
	inSteps := false
	for k := 0; k < len(lines); k++ {
		l := lines[k]
		trim := strings.TrimSpace(l)
		if trim == "steps:" {
			inSteps = true
			continue
		}
		if !inSteps || trim == "" {
			continue
		}
		if strings.HasPrefix(trim, "- ") {
			steps = append(steps, workflowStep{env: map[string]string{}})
			trim = strings.TrimPrefix(trim, "- ")
		}
		if len(steps) == 0 {
			continue
		}
		s := &steps[len(steps)-1]
		key, val, _ := strings.Cut(trim, ":")
		val = strings.TrimSpace(val)
		switch key {
		case "id":
			s.id = val
		case "if":
			s.cond = val
		case "env":
			for k+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[k+1]), "GH_") {
				k++
				ek, ev, _ := strings.Cut(strings.TrimSpace(lines[k]), ":")
				s.env[ek] = strings.TrimSpace(ev)
			}
		case "run":
			if val != "|" {
				s.run = val
				continue
			}
			indent := len(lines[k+1]) - len(strings.TrimLeft(lines[k+1], " "))
			var body []string
			for k+1 < len(lines) && len(lines[k+1])-len(strings.TrimLeft(lines[k+1], " ")) >= indent && strings.TrimSpace(lines[k+1]) != "" {
				k++
				body = append(body, lines[k][indent:])
			}
			s.run = strings.Join(body, "\n") + "\n"
		}
	}
	return steps
}

// TestPullRequestWorkflow runs the pull-request workflow of docs/ci.md
// end to end on a git repository with a base branch: the diff step's
// script as written (with the expressions GitHub fills in), its exit code
// and output, then the comment step when its condition holds, with a
// stand-in gh that records the comment. A pull request that changes
// behaviour gets the Markdown summary as a comment; one that changes
// nothing gets none; a spec that does not parse fails the job.
func TestPullRequestWorkflow(t *testing.T) {
	for _, tool := range []string{"bash", "git"} {
		testenv.Tool(t, tool, "install "+tool)
	}
	steps := workflowSteps(t, "docs/ci.md", "## Comment on a pull request with the behaviour diff")
	var diffStep, commentStep *workflowStep
	for i := range steps {
		switch {
		case steps[i].id == "diff":
			diffStep = &steps[i]
		case strings.Contains(steps[i].run, "gh pr comment"):
			commentStep = &steps[i]
		}
	}
	if diffStep == nil || commentStep == nil || commentStep.cond != "steps.diff.outputs.code == '1'" {
		t.Fatalf("the workflow has not the documented steps: %+v", steps)
	}
	expr := strings.NewReplacer("${{ github.base_ref }}", "main", "${{ github.token }}", "token",
		"${{ github.event.pull_request.number }}", "7")

	readExample := func(name string) []byte {
		data, err := os.ReadFile(filepath.Join(root, "examples", name))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	tests := []struct {
		name    string
		pr      []byte // specs/gate.wrap in the pull request
		code    string // the diff step's recorded code
		fails   bool   // the job fails at the diff step
		comment string // in the comment, or "" for no comment
	}{
		{name: "differs", pr: readExample("approval/toctou_fixed_revoke.wrap"), code: "1", comment: "specs/gate.wrap"},
		{name: "same", pr: readExample("approval/toctou.wrap"), code: "0"},
		{name: "broken", pr: []byte("spec Broken\nvar x: 0..3 = true\n"), code: "2", fails: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, "bin")
			repo := filepath.Join(dir, "repo")
			for _, d := range []string{bin, filepath.Join(repo, "specs")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.Symlink(binary, filepath.Join(bin, "wrapcheck")); err != nil {
				t.Fatal(err)
			}
			// gh records its arguments and the body it would post.
			gh := "#!/bin/sh\necho \"$@\" > \"$GH_LOG\"\nwhile [ $# -gt 0 ]; do if [ \"$1\" = --body-file ]; then cp \"$2\" \"$GH_LOG.body\"; fi; shift; done\n"
			if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(gh), 0o755); err != nil {
				t.Fatal(err)
			}
			output := filepath.Join(dir, "github_output")
			env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
				"GITHUB_OUTPUT="+output, "GH_LOG="+filepath.Join(dir, "gh.log"),
				"GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "NO_COLOR=1", "GITHUB_ACTIONS=")
			sh := func(script string, extra map[string]string) error {
				cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
				cmd.Dir, cmd.Env = repo, env
				for k, v := range extra {
					cmd.Env = append(cmd.Env, k+"="+v)
				}
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Logf("%s\n%s", script, out)
				}
				return err
			}
			// The base branch, as actions/checkout with fetch-depth 0 leaves
			// it, and the pull request's change in the working tree.
			if err := os.WriteFile(filepath.Join(repo, "specs", "gate.wrap"), readExample("approval/toctou.wrap"), 0o644); err != nil {
				t.Fatal(err)
			}
			setup := "git init -q && git add specs && git -c user.name=t -c user.email=t@example.com commit -q -m base && git update-ref refs/remotes/origin/main HEAD"
			if err := sh(setup, nil); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(repo, "specs", "gate.wrap"), tt.pr, 0o644); err != nil {
				t.Fatal(err)
			}

			err := sh(expr.Replace(diffStep.run), nil)
			if fails := err != nil; fails != tt.fails {
				t.Fatalf("the diff step fails %v, want %v (%v)", fails, tt.fails, err)
			}
			out, err := os.ReadFile(output)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSpace(string(out)); got != "code="+tt.code {
				t.Fatalf("GITHUB_OUTPUT %q, want code=%s", got, tt.code)
			}
			if tt.fails {
				return
			}
			if tt.code == "1" { // the step's condition
				extra := map[string]string{}
				for k, v := range commentStep.env {
					extra[k] = expr.Replace(v)
				}
				if err := sh(expr.Replace(commentStep.run), extra); err != nil {
					t.Fatal(err)
				}
			}
			args, err := os.ReadFile(filepath.Join(dir, "gh.log"))
			if tt.comment == "" {
				if err == nil {
					t.Fatalf("a comment was posted: %s", args)
				}
				return
			}
			if err != nil {
				t.Fatal("no comment was posted")
			}
			if got := strings.TrimSpace(string(args)); got != "pr comment 7 --body-file diff.md" {
				t.Errorf("gh %s", got)
			}
			body, err := os.ReadFile(filepath.Join(dir, "gh.log.body"))
			if err != nil {
				t.Fatal(err)
			}
			want := exec.Command(binary, "diff", "--format", "markdown", "--git", "origin/main", "specs/")
			want.Dir, want.Env = repo, env
			md, _ := want.Output()
			if string(body) != string(md) || !strings.Contains(string(body), tt.comment) {
				t.Errorf("the comment is not diff's Markdown summary:\n%s\nwant:\n%s", body, md)
			}
		})
	}
}

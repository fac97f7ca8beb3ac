package quant_test

import (
	"context"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/wrapcheck/wrapcheck/internal/golden"
	"github.com/wrapcheck/wrapcheck/internal/testenv"
	"github.com/wrapcheck/wrapcheck/quant"
	"github.com/wrapcheck/wrapcheck/spec"
)

// peer is one value of a peer model of bench/prism: the query of the
// .wrap file, its expected value (derived by hand, and PRISM's), and
// the same query in PRISM's language over the .pm model.
type peer struct {
	wrap, query string
	max         bool
	want        string // exact
	pm, prop    string
	bounded     bool // PRISM's exact engine has no bounded until: compared with -explicit
}

var peers = []peer{
	{"knuth_yao", "Six", false, "1/6", "knuth_yao", "P=? [ F d=6 ]", false},
	{"knuth_yao", "Six", true, "1/6", "knuth_yao", "P=? [ F d=6 ]", false},
	{"knuth_yao", "SixSoon", true, "1/8", "knuth_yao", "P=? [ F<=3 d=6 ]", true},
	{"knuth_yao", "NotTwice", true, "1/6", "knuth_yao", "P=? [ d=0 U d=6 ]", false},
	{"knuth_yao", "Done", false, "1", "knuth_yao", "P=? [ F s=7 ]", false},
	{"two_dice", "Seven", false, "1/6", "two_dice", "Pmin=? [ F s1=7&s2=7&d1+d2=7 ]", false},
	{"two_dice", "Seven", true, "1/6", "two_dice", "Pmax=? [ F s1=7&s2=7&d1+d2=7 ]", false},
	{"two_dice", "Double", false, "1/6", "two_dice", "Pmin=? [ F s1=7&s2=7&d1=d2 ]", false},
	{"two_dice", "BothSoon", false, "27/32", "two_dice", "Pmin=? [ F<=8 s1=7&s2=7 ]", true},
	{"two_dice", "BothSoon", true, "27/32", "two_dice", "Pmax=? [ F<=8 s1=7&s2=7 ]", true},
	{"two_dice", "FirstSix", false, "0", "two_dice", "Pmin=? [ s2<7 U d1=6 ]", false},
	{"two_dice", "FirstSix", true, "1/6", "two_dice", "Pmax=? [ s2<7 U d1=6 ]", false},
	{"gambler", "Rich", false, "1/5", "gambler", "Pmin=? [ F money=4 ]", false},
	{"gambler", "Rich", true, "1/3", "gambler", "Pmax=? [ F money=4 ]", false},
	{"gambler", "RichSoon", false, "1/9", "gambler", "Pmin=? [ F<=3 money=4 ]", true},
	{"gambler", "RichSoon", true, "1/3", "gambler", "Pmax=? [ F<=3 money=4 ]", true},
	{"gambler", "Ruin", true, "4/5", "gambler", "Pmax=? [ F money=0 ]", false},
	{"gambler_adaptive", "Rich", false, "1/7", "gambler_adaptive", "Pmin=? [ F money=4 ]", false},
	{"gambler_adaptive", "Rich", true, "3/7", "gambler_adaptive", "Pmax=? [ F money=4 ]", false},
	{"herman3", "Stable", false, "1", "herman3", `P=? [ F "stable" ]`, false},
	{"herman3", "StableSoon", false, "63/64", "herman3", `P=? [ F<=3 "stable" ]`, true},
	{"herman3", "Steps", true, "4/3", "herman3", `R{"steps"}=? [ F "stable" ]`, false},
	{"herman5", "Stable", false, "1", "herman5", `P=? [ F "stable" ]`, false},
	{"herman5", "StableSoon", false, "2945/4096", "herman5", `P=? [ F<=3 "stable" ]`, true},
	{"herman5", "Steps", false, "44/15", "herman5", `R{"steps"}=? [ F "stable" ]`, false},
	{"coin", "Finished", false, "1", "coin", `Pmin=? [ F "finished" ]`, false},
	{"coin", "AllZero", false, "49/128", "coin", `Pmin=? [ F "finished" & coin0=0 & coin1=0 ]`, false},
	{"coin", "AllZero", true, "5/9", "coin", `Pmax=? [ F "finished" & coin0=0 & coin1=0 ]`, false},
	{"coin", "Disagree", true, "13/120", "coin", `Pmax=? [ F "finished" & coin0!=coin1 ]`, false},
	{"coin", "Steps", false, "48", "coin", `R{"steps"}min=? [ F "finished" ]`, false},
	{"coin", "Steps", true, "75", "coin", `R{"steps"}max=? [ F "finished" ]`, false},
	{"haddad_monmege", "Target", true, "1/2", "haddad_monmege", "P=? [ F x=N ]", false},
	{"leader_sync", "Elected", false, "1", "leader_sync", `P=? [ F "elected" ]`, false},
	{"leader_sync", "ElectedSoon", false, "65/81", "leader_sync", `P=? [ F<=2 "elected" ]`, true},
	{"leader_sync", "Rounds", false, "9/5", "leader_sync", `R{"rounds"}=? [ F "elected" ]`, false},
	// brp: a DTMC in PRISM; in wrap every state has one choice, so min
	// and max are both compared with PRISM's value
	{"brp", "A", false, "0", "brp", "P=? [ F srep=1 & rrep=3 & recv ]", false},
	{"brp", "A", true, "0", "brp", "P=? [ F srep=1 & rrep=3 & recv ]", false},
	{"brp", "B", true, "0", "brp", "P=? [ F srep=3 & !(rrep=3) & recv ]", false},
	{"brp", "P1", false, brpP1, "brp", "P=? [ F s=5 & T ]", false},
	{"brp", "P1", true, brpP1, "brp", "P=? [ F s=5 & T ]", false},
	{"brp", "P2", true, brpP2, "brp", "P=? [ F s=5 & T & srep=2 ]", false},
	{"brp", "P3", true, brpP3, "brp", "P=? [ F s=5 & T & srep=1 & i>8 ]", false},
	{"brp", "P4", false, "1/125000", "brp", "P=? [ F !(srep=0) & T & !recv ]", false},
	{"brp", "P4", true, "1/125000", "brp", "P=? [ F !(srep=0) & T & !recv ]", false},
	{"brp", "P1Soon", true, "2710304914704085443024773/19531250000000000000000000000", "brp", "P=? [ F<=40 s=5 & T ]", true},
}

// The values of brp's properties 1 to 3 (N = 16, MAX = 2), PRISM's:
// about 4.233e-4, 2.645e-5 and 1.852e-4. Property 4 is the first chunk
// lost three times, (2/100)^3.
const (
	brpP1 = "1503982516387544510687823213516750681753609533738014093985492327446021823341670745201522478360759626261166470522913554557570937367804047825330483938531949304640395637223627199/3552713678800500929355621337890625000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
	brpP2 = "93980251563940138172004311347458744568245436896169728942195995143526850352452762314901825488783622398799995909461351243179986910158596657499638600983972028048927012223627199/3552713678800500929355621337890625000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
	brpP3 = "5263451232139693124411652758168998406810402644036857734408482594332276209225351083933896161696511155898931796907617626515127603661163609342646762700383818212731749/28421709430404007434844970703125000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
)

// results computes every query of each peer .wrap model once.
func results(t *testing.T) map[string]*quant.Result {
	t.Helper()
	return resultsWith(t, quant.Options{})
}

// resultsWith is results under opts.
func resultsWith(t *testing.T, opts quant.Options) map[string]*quant.Result {
	t.Helper()
	out := map[string]*quant.Result{}
	for _, p := range peers {
		if out[p.wrap] != nil {
			continue
		}
		path := filepath.Join("..", "bench", "prism", p.wrap+".wrap")
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := spec.ParseFile(path, src, spec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := quant.Check(context.Background(), m, opts)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out[p.wrap] = res
	}
	return out
}

func value(t *testing.T, res *quant.Result, p peer) *big.Rat {
	t.Helper()
	for _, r := range res.Queries {
		if r.Query.Name == p.query {
			v := r.Min
			if p.max {
				v = r.Max
			}
			if v == nil {
				t.Fatalf("%s: %s not computed (max %v)", p.wrap, p.query, p.max)
			}
			return v
		}
	}
	for _, r := range res.Expectations {
		if r.Expectation.Name == p.query {
			v, inf := r.Min, r.MinInf
			if p.max {
				v, inf = r.Max, r.MaxInf
			}
			if v == nil || inf {
				t.Fatalf("%s: %s not computed or infinite (max %v)", p.wrap, p.query, p.max)
			}
			return v
		}
	}
	t.Fatalf("%s: no query %s", p.wrap, p.query)
	return nil
}

// TestPeerValues checks the peer models against the values derived by
// hand (gambler.wrap's: bold play from 2 wins at once with 1/3; timid
// play is the gambler's ruin, ((q/p)^2-1)/((q/p)^4-1) = 3/15 with q/p =
// 2; with the coin seen first, V = 1/3 + 2/3 V/3 gives 3/7; Herman's
// ring of 3 from 3 tokens stabilises each step with 6/8, so in 4/3 steps
// on average and within 3 with 1 - (1/4)^3; a round of the leader
// election elects with 15/27, so 9/5 rounds; the walk of haddad_monmege
// is symmetric, 1/2), and PRISM's values where no hand derivation is
// short (Herman's 5, the consensus coin).
func TestPeerValues(t *testing.T) {
	res := results(t)
	for _, p := range peers {
		if got := value(t, res[p.wrap], p); got.RatString() != p.want {
			t.Errorf("%s %s (max %v) = %s, want %s", p.wrap, p.query, p.max, got.RatString(), p.want)
		}
	}
}

// prismPath returns the PRISM launcher: $WRAPCHECK_PRISM, or prism on
// PATH, or "".
func prismPath() string {
	if p := os.Getenv("WRAPCHECK_PRISM"); p != "" {
		return p
	}
	p, _ := exec.LookPath("prism")
	return p
}

// TestPRISM runs PRISM on the .pm peer of each model and compares:
// exactly with -exact for unbounded queries, within 1e-12 with -explicit
// for bounded ones (PRISM's exact engine has no bounded until); then it
// compares PRISM's answers with the recording of bench/prism/results.json
// (TestPRISMRecorded's, which CI reads), or, with WRAPCHECK_UPDATE set,
// writes the recording. It is skipped when PRISM is not found: set
// WRAPCHECK_PRISM to the prism launcher, or put prism on PATH (it needs
// Java).
func TestPRISM(t *testing.T) {
	prism := prismPath()
	if prism == "" {
		testenv.Missing(t, "prism", "PRISM not found: set WRAPCHECK_PRISM to the prism launcher, or put prism on PATH (TestPRISMRecorded compares with PRISM's recorded answers)")
	}
	rec := runPRISM(t, prism)
	res := results(t)
	for _, r := range rec.Runs {
		compareRun(t, res, r)
	}
	if golden.Update() {
		writeRecording(t, rec)
		return
	}
	old := readRecording(t)
	if diff := cmp.Diff(old, rec); diff != "" {
		t.Errorf("%s differs from PRISM's answers now (-recorded +now); rerun with WRAPCHECK_UPDATE=1 (bench/prism/record.sh):\n%s", recordingPath, diff)
	}
}

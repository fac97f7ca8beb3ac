package syntax

import (
	"bytes"
	"fmt"
	"os"
	"testing"
)

// bigSpec returns a spec of at least lines lines, made of copies of
// testdata/pipeline.wrap (without its spec line).
func bigSpec(tb testing.TB, lines int) []byte {
	tb.Helper()
	src, err := os.ReadFile("testdata/pipeline.wrap")
	if err != nil {
		tb.Fatal(err)
	}
	_, body, _ := bytes.Cut(src, []byte("spec Pipeline\n"))
	var b bytes.Buffer
	b.WriteString("spec Big\n")
	for i := 0; bytes.Count(b.Bytes(), []byte("\n")) < lines; i++ {
		fmt.Fprintf(&b, "// copy %d\n", i)
		b.Write(body)
	}
	return b.Bytes()
}

func BenchmarkParse(b *testing.B) {
	src := bigSpec(b, 1000)
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Parse("big.wrap", src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFormat(b *testing.B) {
	f, err := Parse("big.wrap", bigSpec(b, 1000))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		Format(f)
	}
}

//go:build js && wasm

// Command wasm is the checker for the browser (GOOS=js GOARCH=wasm). It
// defines two JavaScript functions on the global object and then waits:
//
//	wrapcheckRun(id, request) // request: the JSON of an engine.Request
//	wrapcheckExamples()       // the JSON list of engine.Examples
//
// wrapcheckRun answers later, by calling the global
// wrapcheckDone(id, response) with the JSON of an engine.Response, and
// wrapcheckProgress(id, progress) now and then during a check. Once the
// functions are defined it calls wrapcheckReady(). A search runs to its
// limits; to cancel it the page terminates the Web Worker it runs in.
package main

import (
	"context"
	"encoding/json"
	"syscall/js"

	"github.com/wrapcheck/wrapcheck/web/engine"
)

func main() {
	global := js.Global()
	global.Set("wrapcheckRun", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) < 2 {
			return nil
		}
		id, text := args[0].Int(), args[1].String()
		go run(global, id, text)
		return nil
	}))
	global.Set("wrapcheckExamples", js.FuncOf(func(_ js.Value, _ []js.Value) any {
		ex, err := engine.Examples()
		if err != nil {
			return "[]"
		}
		b, _ := json.Marshal(ex)
		return string(b)
	}))
	if ready := global.Get("wrapcheckReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

// run answers one request.
func run(global js.Value, id int, text string) {
	var req engine.Request
	var resp *engine.Response
	if err := json.Unmarshal([]byte(text), &req); err != nil {
		resp = &engine.Response{Errors: []engine.Diagnostic{{Msg: "bad request: " + err.Error(), Text: "bad request: " + err.Error()}}}
	} else {
		resp = engine.Run(context.Background(), req, func(p engine.Progress) {
			b, _ := json.Marshal(p)
			global.Call("wrapcheckProgress", id, string(b))
		})
	}
	b, err := json.Marshal(resp)
	if err != nil {
		b = []byte(`{"errors":[{"msg":"internal error: cannot encode the response"}]}`)
	}
	global.Call("wrapcheckDone", id, string(b))
}

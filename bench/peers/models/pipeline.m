-- pipeline.m -- verifier pipeline of a multi-step document generator (Murphi / Rumur).
-- K independent, symmetric runs (scalarset), each processing N steps in order.
-- bench/peers.sh substitutes the constants below (K, N, BUG) with sed.
-- Same rules, same state variables and same initial state as pipeline.pml;
-- see ../README.md.
const
  K   : 2;       -- number of concurrent independent runs (1..6)
  N   : 2;       -- number of steps per run (1..4)
  BUG : false;   -- seeded defect (second glitch on the last step releases with caveat)

type
  run_t   : scalarset(K);
  step_t  : 0..N-1;
  cur_t   : 0..N;
  phase_t : enum { RENDER, VERIFY, FINISHED, STOPPED };
  rel_t   : enum { NONE, CLEAN, CAVEAT };
  cnt_t   : 0..2;
  run_rec : record
    cur  : cur_t;                  -- index of current step (N = all done)
    ph   : phase_t;
    insp : array [step_t] of cnt_t; -- parseable verdicts (pass/fail) on step i
    gl   : array [step_t] of cnt_t; -- garbled/outage verdicts on step i
    rel  : array [step_t] of rel_t; -- release status of step i
  end;

var
  r : array [run_t] of run_rec;

procedure advance(x : run_t);
begin
  r[x].cur := r[x].cur + 1;
  if r[x].cur = N then r[x].ph := FINISHED; else r[x].ph := RENDER; endif;
end;

procedure glitch(x : run_t);
begin
  r[x].gl[r[x].cur] := r[x].gl[r[x].cur] + 1;
  if r[x].gl[r[x].cur] = 2 then
    if BUG & r[x].cur = N - 1 then
      r[x].rel[r[x].cur] := CAVEAT; advance(x);
    else
      r[x].ph := STOPPED;
    endif;
  endif;
end;

ruleset x : run_t do

  rule "render" r[x].ph = RENDER ==>
  begin
    r[x].ph := VERIFY;
  end;

  rule "pass" r[x].ph = VERIFY ==>
  begin
    r[x].insp[r[x].cur] := r[x].insp[r[x].cur] + 1;
    r[x].rel[r[x].cur] := CLEAN;
    advance(x);
  end;

  rule "fail" r[x].ph = VERIFY ==>
  begin
    r[x].insp[r[x].cur] := r[x].insp[r[x].cur] + 1;
    if r[x].insp[r[x].cur] = 1 then
      r[x].ph := RENDER;                 -- exactly one re-render, then re-verify
    else
      r[x].rel[r[x].cur] := CAVEAT;      -- second fail: release with caveat
      advance(x);
    endif;
  end;

  rule "garbled" r[x].ph = VERIFY ==>
  begin
    glitch(x);
  end;

  rule "outage" r[x].ph = VERIFY ==>
  begin
    glitch(x);
  end;

endruleset;

startstate "init"
begin
  for x : run_t do
    r[x].cur := 0;
    r[x].ph := RENDER;
    for i : step_t do
      r[x].insp[i] := 0;
      r[x].gl[i] := 0;
      r[x].rel[i] := NONE;
    endfor;
  endfor;
end;

invariant "released only after an inspection"
  forall x : run_t do forall i : step_t do
    r[x].rel[i] != NONE -> r[x].insp[i] >= 1
  endforall endforall;

invariant "caveat only after two inspections"
  forall x : run_t do forall i : step_t do
    r[x].rel[i] = CAVEAT -> r[x].insp[i] = 2
  endforall endforall;

invariant "after a stop nothing more is released"
  forall x : run_t do forall i : step_t do
    (r[x].ph = STOPPED & i >= r[x].cur) -> r[x].rel[i] = NONE
  endforall endforall;

invariant "steps released in order, exactly the ones before cur"
  forall x : run_t do forall i : step_t do
    (i < r[x].cur) = (r[x].rel[i] != NONE)
  endforall endforall;

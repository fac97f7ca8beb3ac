-- mutex.m -- N-process filter lock (generalised Peterson), Murphi / Rumur.
-- bench/peers.sh substitutes N with sed.  Same rules and state as mutex.pml.
const
  N : 3;     -- number of processes (2..8)

type
  proc  : scalarset(N);
  lvl_t : 0..N-1;
  st_t  : enum { IDLE, SETV, WAIT, CS };

var
  level  : array [proc] of lvl_t;     -- 0 = not competing
  victim : array [1..N-1] of proc;    -- undefined until first written (Promela: 255)
  st     : array [proc] of st_t;

ruleset i : proc do

  rule "enter" st[i] = IDLE ==>
  begin
    level[i] := 1; st[i] := SETV;
  end;

  rule "setvictim" st[i] = SETV ==>
  begin
    victim[level[i]] := i; st[i] := WAIT;
  end;

  rule "advance"
    st[i] = WAIT & ((forall k : proc do k = i | level[k] < level[i] endforall) | victim[level[i]] != i)
  ==>
  begin
    if level[i] < N - 1 then
      level[i] := level[i] + 1; st[i] := SETV;
    else
      st[i] := CS;
    endif;
  end;

  rule "exit" st[i] = CS ==>
  begin
    level[i] := 0; st[i] := IDLE;
  end;

endruleset;

startstate "init"
begin
  for i : proc do level[i] := 0; st[i] := IDLE; endfor;
  undefine victim;
end;

invariant "mutual exclusion"
  forall i : proc do forall j : proc do
    i != j -> !(st[i] = CS & st[j] = CS)
  endforall endforall;

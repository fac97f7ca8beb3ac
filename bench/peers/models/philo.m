-- philo.m -- dining philosophers (Murphi / Rumur).  bench/peers.sh substitutes N.
-- Same rules and state as philo.pml.  No scalarset: the ring is only
-- rotation-symmetric, which Murphi scalarsets cannot express.
const
  N : 5;

type
  pid_t : 0..N-1;
  ph_t  : enum { THINK, HASLEFT, EAT };

var
  ph   : array [pid_t] of ph_t;
  fork : array [pid_t] of boolean;   -- fork i held?

function right(p : pid_t) : pid_t; begin return (p + 1) % N; end;
function prev(p : pid_t) : pid_t;  begin return (p + N - 1) % N; end;

ruleset p : pid_t do

  rule "takeleft" ph[p] = THINK & !fork[p] ==>
  begin
    fork[p] := true; ph[p] := HASLEFT;
  end;

  rule "takeright" ph[p] = HASLEFT & !fork[right(p)] ==>
  begin
    fork[right(p)] := true; ph[p] := EAT;
  end;

  rule "release" ph[p] = EAT ==>
  begin
    fork[p] := false; fork[right(p)] := false; ph[p] := THINK;
  end;

endruleset;

startstate "init"
begin
  for p : pid_t do ph[p] := THINK; fork[p] := false; endfor;
end;

invariant "neighbours never eat together"
  forall p : pid_t do ph[p] = EAT -> (ph[right(p)] != EAT & ph[prev(p)] != EAT) endforall;

invariant "forks consistent with philosophers"
  forall p : pid_t do fork[p] = (ph[p] = HASLEFT | ph[p] = EAT | ph[prev(p)] = EAT) endforall;

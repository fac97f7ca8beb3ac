-- toctou.m -- approval time-of-check/time-of-use race (Murphi / Rumur).
-- bench/peers.sh substitutes D, M, FIXED.  Same rules and state as toctou.pml.
const
  D     : 1;       -- number of documents (1..4), symmetric
  M     : 1;       -- maximum number of edits per document
  FIXED : false;   -- false: release the live version (TOCTOU bug)

type
  doc_t : scalarset(D);
  ver_t : 0..M;

var
  ver  : array [doc_t] of ver_t;   -- live content version
  appr : array [doc_t] of ver_t;   -- approved version; undefined = not approved (Promela: 255)
  rel  : array [doc_t] of ver_t;   -- released version; undefined = not released (Promela: 255)

ruleset d : doc_t do

  rule "approve" isundefined(appr[d]) ==>
  begin
    appr[d] := ver[d];
  end;

  rule "reapprove" !isundefined(appr[d]) & isundefined(rel[d]) & ver[d] != appr[d] ==>
  begin
    appr[d] := ver[d];
  end;

  rule "edit" isundefined(rel[d]) & ver[d] < M ==>
  begin
    ver[d] := ver[d] + 1;
  end;

  rule "release"
    !isundefined(appr[d]) & isundefined(rel[d]) & (!FIXED | ver[d] = appr[d])
  ==>
  begin
    rel[d] := ver[d];
  end;

endruleset;

startstate "init"
begin
  for d : doc_t do ver[d] := 0; endfor;
  undefine appr;
  undefine rel;
end;

invariant "released content == approved content"
  forall d : doc_t do !isundefined(rel[d]) -> rel[d] = appr[d] endforall;

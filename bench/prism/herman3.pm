// The peer of herman3.wrap: Herman's self-stabilising ring, 3 processes, from all bits 0.
dtmc

module process0
  x0 : [0..1] init 0;
  [step] x0=x2 -> 1/2 : (x0'=0) + 1/2 : (x0'=1);
  [step] x0!=x2 -> (x0'=x2);
endmodule

module process1 = process0 [x0=x1, x2=x0] endmodule
module process2 = process0 [x0=x2, x2=x1] endmodule

formula tokens = (x0=x2?1:0) + (x1=x0?1:0) + (x2=x1?1:0);
label "stable" = tokens=1;

rewards "steps"
  [step] true : 1;
endrewards

// The peer of herman5.wrap: Herman's self-stabilising ring, 5 processes, from all bits 0.
dtmc

module process0
  x0 : [0..1] init 0;
  [step] x0=x4 -> 1/2 : (x0'=0) + 1/2 : (x0'=1);
  [step] x0!=x4 -> (x0'=x4);
endmodule

module process1 = process0 [x0=x1, x4=x0] endmodule
module process2 = process0 [x0=x2, x4=x1] endmodule
module process3 = process0 [x0=x3, x4=x2] endmodule
module process4 = process0 [x0=x4, x4=x3] endmodule

formula tokens = (x0=x4?1:0) + (x1=x0?1:0) + (x2=x1?1:0) + (x3=x2?1:0) + (x4=x3?1:0);
label "stable" = tokens=1;

rewards "steps"
  [step] true : 1;
endrewards

/* The growth series' model (growth.wrap) in Promela, for bench/growth.sh's
 * spin mode: four counters modulo M, each advanced by its own process.
 * M^4 states; a depth-first search reaches depth M^4 - 1 on it, so the
 * script runs SPIN breadth-first (-DBFS) with a bit-state table
 * (-DBITSTATE): at M = 18, SPIN's -DHC4 stored 52,956 of the 104,976
 * states, breadth- and depth-first alike (SPIN 6.5). */
#ifndef M
#define M 18
#endif
byte t[4];
active [4] proctype worker() {
	do
	:: atomic { t[_pid] = (t[_pid] + 1) % M }
	od
}

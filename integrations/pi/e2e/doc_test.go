// Package e2e runs the pi extension (integrations/pi) inside the real pi
// coding agent from npm — the 0.73.x line and the 1.x line — against the
// supplier double on loopback, with the real continuity binary as the
// plugin. pi is driven in print mode (`pi -c -p`) and in RPC mode (`pi
// --mode rpc`, for the interactive pieces). The npm packages come from
// scripts/setup.d/10-pi.sh; without them the tests fail and say so.
package e2e_test

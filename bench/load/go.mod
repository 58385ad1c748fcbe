module sieve/bench/load

go 1.22

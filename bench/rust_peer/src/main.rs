//! Hugging Face `tokenizers` from Rust on the tokenizer benchmark's corpus:
//! the peer of bench/tokenizer_bench.cpp and bench/tokenizer_peers.py, with
//! the same JSON output (and the same FNV-1a hash of every id).
//!
//!     sieve-tokenizer-rust-peer --tokenizer NAME=FILE --corpus FILE [--min-seconds S]
//!
//! Single thread: the library's parallelism off, rates per second of process
//! CPU time. All cores: parallelism on, rates per second of wall time.
use std::time::Instant;

use serde_json::json;
use tokenizers::utils::parallelism::set_parallelism;
use tokenizers::{Encoding, Tokenizer};

fn cpu_seconds() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn hash_ids(encodings: &[Encoding]) -> u64 {
    let mut h: u64 = 1469598103934665603;
    for e in encodings {
        for &id in e.get_ids() {
            h = (h ^ u64::from(id)).wrapping_mul(1099511628211);
        }
        h = (h ^ 0xFFFF_FFFF).wrapping_mul(1099511628211);
    }
    h
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

fn measure(tok: &Tokenizer, lines: &[String], min_seconds: f64, all_cores: bool) -> (usize, u64, f64, usize) {
    set_parallelism(all_cores);
    let first = tok.encode_batch(lines.to_vec(), true).expect("encode_batch");
    let tokens: usize = first.iter().map(|e| e.get_ids().len()).sum();
    let hash = hash_ids(&first);
    let clock = |wall: &Instant| if all_cores { wall.elapsed().as_secs_f64() } else { cpu_seconds() };
    let mut rates = Vec::new();
    let start = Instant::now();
    while start.elapsed().as_secs_f64() < min_seconds || rates.len() < 3 {
        let inputs = lines.to_vec(); // encode_batch takes its inputs by value: copied outside the timing
        let wall = Instant::now();
        let t = clock(&wall);
        let encodings = tok.encode_batch(inputs, true).expect("encode_batch");
        let seconds = clock(&wall) - if all_cores { 0.0 } else { t };
        rates.push(encodings.iter().map(|e| e.get_ids().len()).sum::<usize>() as f64 / seconds);
    }
    let n = rates.len();
    (tokens, hash, median(rates), n)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut specs = Vec::new();
    let mut corpus = None;
    let mut min_seconds = 3.0;
    let mut i = 1;
    while i < args.len() {
        match args[i].as_str() {
            "--tokenizer" => { specs.push(args[i + 1].clone()); i += 2; }
            "--corpus" => { corpus = Some(args[i + 1].clone()); i += 2; }
            "--min-seconds" => { min_seconds = args[i + 1].parse().expect("--min-seconds: a number"); i += 2; }
            other => { eprintln!("unknown argument {other}"); std::process::exit(2); }
        }
    }
    let corpus = corpus.unwrap_or_else(|| { eprintln!("--corpus FILE is required"); std::process::exit(2) });
    let text = std::fs::read_to_string(&corpus).expect("read the corpus");
    let mut lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
    if lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    let mut report = json!({"lines": lines.len(), "tokenizers_version": "0.23.2 (Rust crate)", "tokenizers": {}});
    for spec in specs {
        let (name, path) = spec.split_once('=').map(|(n, p)| (n.to_owned(), p.to_owned()))
            .unwrap_or_else(|| (spec.clone(), spec.clone()));
        let mut tok = Tokenizer::from_file(&path).expect("load tokenizer.json");
        tok.with_truncation(None).expect("no truncation");
        tok.with_padding(None);
        let (tokens, hash, single, single_reps) = measure(&tok, &lines, min_seconds, false);
        let (_, _, multi, multi_reps) = measure(&tok, &lines, min_seconds, true);
        report["tokenizers"][&name] = json!({
            "tokens": tokens, "ids_hash": hash.to_string(),
            "single_thread": {"tokens_per_second": single, "repetitions": single_reps},
            "all_cores": {"tokens_per_second": multi, "repetitions": multi_reps},
        });
        eprintln!("{name}: {}", report["tokenizers"][&name]);
    }
    println!("{}", serde_json::to_string_pretty(&report).unwrap());
}

//! The Tower of Hanoi in Rust: n discs from peg 0 to peg 2 by three methods, and the cyclic Tower
//! of Hanoi: n discs from peg 0 to peg 1, each move one peg on (0 to 1, 1 to 2, 2 to 0).
//!
//!     rustc -O -o hanoi hanoi.rs && ./hanoi binary|recursive|iterative|cyclic N
//!
//! Each move is printed as it is made, one a line, as `Move`'s `Display` shows it, through one
//! buffered writer: memory is O(n) whatever n is. The first moves for N = 3:
//!
//!     disc 1: 0 -> 2
//!     disc 2: 0 -> 1
//!     disc 1: 2 -> 1
//!
//! A bad METHOD or N: a usage message on standard error and exit code 2.

use std::env;
use std::fmt;
use std::io::{self, BufWriter, Write};
use std::process;

/// The most discs a `u64` count of moves allows: 2^63 - 1 moves.
const MAX_DISCS: u32 = 63;

/// One move: the disc on top of peg `from` goes on top of peg `to`. Disc 1 is the smallest.
struct Move {
    disc: u32,
    from: usize,
    to: usize,
}

/// A move as it is printed: `disc 1: 0 -> 2`.
impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "disc {}: {} -> {}", self.disc, self.from, self.to)
    }
}

/// Prints one move, as `Display` shows it.
fn emit(out: &mut impl Write, disc: u32, from: usize, to: usize) -> io::Result<()> {
    writeln!(out, "{}", Move { disc, from, to })
}

// region binary
/// After the Tower of Hanoi notes: move i (1 <= i < 2^n) takes disc 1 + (the trailing zero bits of
/// i) from peg (i & (i - 1)) % 3 to peg ((i | (i - 1)) + 1) % 3. The formula ends on peg 1 when n
/// is even, so for even n pegs 1 and 2 swap names.
fn binary(n: u32, out: &mut impl Write) -> io::Result<()> {
    let peg = if n % 2 == 0 { [0, 2, 1] } else { [0, 1, 2] };
    for i in 1..1u64 << n {
        let from = peg[((i & (i - 1)) % 3) as usize];
        let to = peg[(((i | (i - 1)) + 1) % 3) as usize];
        emit(out, 1 + i.trailing_zeros(), from, to)?;
    }
    Ok(())
}
// endregion binary

// region recursive
/// After the notes' r_toh(n, origin, target, spare) and Flach's hanoi/5 in Simply Logical: the
/// n - 1 smaller discs out of the way to the spare peg, the largest to the target, the n - 1 back
/// on top.
fn recursive(n: u32, source: usize, target: usize, spare: usize, out: &mut impl Write) -> io::Result<()> {
    if n == 0 {
        return Ok(());
    }
    recursive(n - 1, source, spare, target, out)?;
    emit(out, n, source, target)?;
    recursive(n - 1, spare, target, source, out)
}
// endregion recursive

// region iterative
/// After COMP9021's iterative_towers: every other move is the smallest disc's, always the same way
/// round (from p to p - 1 mod 3 for odd n, to p + 1 for even n); each move between is the only
/// legal move between the two pegs the smallest disc is not on.
fn iterative(n: u32, out: &mut impl Write) -> io::Result<()> {
    let direction = if n % 2 == 1 { 2 } else { 1 }; // 2 is -1 mod 3
    let mut stacks: [Vec<u32>; 3] = [(1..=n).rev().collect(), Vec::new(), Vec::new()];
    let mut small_disc_pos = 0;
    for i in 0..(1u64 << n) - 1 {
        let (from, to) = if i % 2 == 0 {
            let new_small_disc_pos = (small_disc_pos + direction) % 3;
            let step = (small_disc_pos, new_small_disc_pos);
            small_disc_pos = new_small_disc_pos;
            step
        } else {
            let (a, b) = ((small_disc_pos + 1) % 3, (small_disc_pos + 2) % 3);
            match (stacks[a].last(), stacks[b].last()) {
                (None, _) => (b, a),
                (Some(top_a), Some(top_b)) if top_b < top_a => (b, a),
                _ => (a, b),
            }
        };
        let disc = stacks[from].pop().expect("a legal move takes a disc");
        stacks[to].push(disc);
        emit(out, disc, from, to)?;
    }
    Ok(())
}
// endregion iterative

// region cyclic
// After King-Yan Kwan's "Cyclic Tower of Hanoi - analysis and implementation": a disc may only
// move to the next tower, so discs go either to the adjacent tower or to the post-adjacent one (two
// on), and each of the two transfers is made of the other.

fn next_tower(t: usize) -> usize {
    (t + 1) % 3
}

/// n discs from `src` to `dst`, the tower after it: the n - 1 above out of the way to the tower
/// after `dst`, the largest across, the n - 1 on top of it.
fn transfer_adjacent(n: u32, src: usize, dst: usize, out: &mut impl Write) -> io::Result<()> {
    if n == 0 {
        return Ok(());
    }
    transfer_post_adjacent(n - 1, src, next_tower(dst), out)?;
    emit(out, n, src, dst)?;
    transfer_post_adjacent(n - 1, next_tower(dst), dst, out)
}

/// n discs from `src` to `dst`, two towers on: room is made twice for the largest, which moves
/// twice.
fn transfer_post_adjacent(n: u32, src: usize, dst: usize, out: &mut impl Write) -> io::Result<()> {
    if n == 0 {
        return Ok(());
    }
    transfer_post_adjacent(n - 1, src, dst, out)?;
    emit(out, n, src, next_tower(src))?;
    transfer_adjacent(n - 1, dst, src, out)?;
    emit(out, n, next_tower(src), dst)?;
    transfer_post_adjacent(n - 1, src, dst, out)
}
// endregion cyclic

fn usage(problem: &str) -> ! {
    eprintln!(
        "usage: hanoi binary|recursive|iterative|cyclic N   (N a whole number of discs, 0 to {})",
        MAX_DISCS
    );
    eprintln!("hanoi: {}", problem);
    process::exit(2);
}

/// Reads N: decimal digits only (no sign), at most `MAX_DISCS`.
fn parse_discs(text: &str) -> Result<u32, String> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "N must be a whole number of discs, 0 or more, not {:?}",
            text
        ));
    }
    match text.parse::<u32>() {
        Ok(n) if n <= MAX_DISCS => Ok(n),
        _ => Err(format!(
            "N = {} is more discs than a 64-bit count of moves allows",
            text
        )),
    }
}

fn main() {
    let args: Vec<String> = env::args().collect();
    if args.len() != 3 {
        usage("expected a method and a number of discs");
    }
    let method = args[1].as_str();
    if !["binary", "recursive", "iterative", "cyclic"].contains(&method) {
        usage(&format!("unknown method {:?}", method));
    }
    let n = parse_discs(&args[2]).unwrap_or_else(|problem| usage(&problem));

    let stdout = io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let written = match method {
        "binary" => binary(n, &mut out),
        "recursive" => recursive(n, 0, 2, 1, &mut out),
        "iterative" => iterative(n, &mut out),
        _ => transfer_adjacent(n, 0, 1, &mut out),
    };
    // A reader that stops early (`| head`) ends the program quietly, as it would end cat.
    match written.and_then(|()| out.flush()) {
        Err(error) if error.kind() != io::ErrorKind::BrokenPipe => {
            eprintln!("hanoi: {}", error);
            process::exit(1);
        }
        _ => {}
    }
}

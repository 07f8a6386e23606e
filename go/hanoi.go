// Command hanoi prints the moves of the Tower of Hanoi: N disks from peg 0 to peg 2 by three
// methods, and the moves of the cyclic Tower of Hanoi: N disks from peg 0 to peg 1, each move one
// peg on (0 to 1, 1 to 2, 2 to 0).
//
//	go build -o hanoi hanoi.go && ./hanoi binary|recursive|iterative|cyclic N
//
// Each move is one line, printed as it is made, through one buffered writer: memory is O(N)
// whatever N is. The first moves for N = 3:
//
//	disk 1: 0 -> 2
//	disk 2: 0 -> 1
//	disk 1: 2 -> 1
//
// A bad METHOD or N: a usage message on standard error and exit status 2.
package main

import (
	"bufio"
	"fmt"
	"math/bits"
	"os"
	"strconv"
)

// maxDisks is the most disks a uint64 count of moves allows: 2^63 - 1 moves.
const maxDisks = 63

// A moveFunc takes the top disk of peg from to the top of peg to.
type moveFunc func(disk, from, to int)

// region binary

// binary follows the Tower of Hanoi notes' bitwise formula: move i (1 <= i < 2^n) takes disk
// 1 + (the trailing zero bits of i) from peg (i & (i-1)) % 3 to peg ((i | (i-1)) + 1) % 3. The
// formula ends on peg 1 when n is even, so for even n pegs 1 and 2 swap names.
func binary(n int, move moveFunc) {
	peg := [3]int{0, 1, 2}
	if n%2 == 0 {
		peg = [3]int{0, 2, 1}
	}
	for i := uint64(1); i < 1<<n; i++ {
		move(1+bits.TrailingZeros64(i), peg[(i&(i-1))%3], peg[((i|(i-1))+1)%3])
	}
}

// endregion binary

// region recursive

// recursive follows the notes' r_toh(n, origin, target, spare) and Flach's hanoi/5 in Simply
// Logical: the n-1 smaller disks out of the way to the spare peg, the largest to the target, the
// n-1 back on top of it.
func recursive(n, source, target, spare int, move moveFunc) {
	if n == 0 {
		return
	}
	recursive(n-1, source, spare, target, move)
	move(n, source, target)
	recursive(n-1, spare, target, source, move)
}

// endregion recursive

// region iterative

// iterative follows COMP9021's iterative_towers: every other move is the smallest disk's, always
// the same way round (from p to p-1 mod 3 for odd n, to p+1 for even n); each move between is the
// only legal move between the two pegs the smallest disk is not on.
func iterative(n int, move moveFunc) {
	direction := 1
	if n%2 == 1 {
		direction = 2 // -1 mod 3
	}
	var stacks [3][]int // each from the bottom up
	for disk := n; disk >= 1; disk-- {
		stacks[0] = append(stacks[0], disk)
	}
	top := func(pos int) int { return stacks[pos][len(stacks[pos])-1] }
	shift := func(from, to int) {
		disk := top(from)
		stacks[from] = stacks[from][:len(stacks[from])-1]
		stacks[to] = append(stacks[to], disk)
		move(disk, from, to)
	}
	smallDiskPos := 0
	for i := uint64(0); i < 1<<n-1; i++ {
		if i%2 == 0 {
			newSmallDiskPos := (smallDiskPos + direction) % 3
			shift(smallDiskPos, newSmallDiskPos)
			smallDiskPos = newSmallDiskPos
		} else {
			from, to := (smallDiskPos+1)%3, (smallDiskPos+2)%3
			if len(stacks[from]) == 0 || len(stacks[to]) > 0 && top(to) < top(from) {
				from, to = to, from
			}
			shift(from, to)
		}
	}
}

// endregion iterative

// region cyclic

// The cyclic Tower of Hanoi, after King-Yan Kwan's "Cyclic Tower of Hanoi - analysis and
// implementation": a disk may only move to the next tower, so disks go either to the adjacent
// tower or to the post-adjacent one (two on), and each of the two transfers is made of the other.

func nextTower(t int) int { return (t + 1) % 3 }

// transferAdjacent moves n disks from src to dst, the tower after it: the n-1 above out of the way
// to the tower after dst, the largest across, the n-1 on top of it.
func transferAdjacent(n, src, dst int, move moveFunc) {
	if n == 0 {
		return
	}
	transferPostAdjacent(n-1, src, nextTower(dst), move)
	move(n, src, dst)
	transferPostAdjacent(n-1, nextTower(dst), dst, move)
}

// transferPostAdjacent moves n disks from src to dst, two towers on: room is made twice for the
// largest, which moves twice.
func transferPostAdjacent(n, src, dst int, move moveFunc) {
	if n == 0 {
		return
	}
	transferPostAdjacent(n-1, src, dst, move)
	move(n, src, nextTower(src))
	transferAdjacent(n-1, dst, src, move)
	move(n, nextTower(src), dst)
	transferPostAdjacent(n-1, src, dst, move)
}

// endregion cyclic

func usage(problem string) {
	fmt.Fprintf(os.Stderr, "usage: hanoi binary|recursive|iterative|cyclic N   "+
		"(N a whole number of disks, 0 to %d)\nhanoi: %s\n", maxDisks, problem)
	os.Exit(2)
}

// parseDisks reads N: decimal digits only (no sign), at most maxDisks.
func parseDisks(text string) (int, error) {
	if text == "" {
		return 0, fmt.Errorf("N must be a whole number of disks, 0 or more, not %q", text)
	}
	for _, c := range text {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("N must be a whole number of disks, 0 or more, not %q", text)
		}
	}
	n, err := strconv.Atoi(text)
	if err != nil || n > maxDisks {
		return 0, fmt.Errorf("N = %s is more disks than a 64-bit count of moves allows", text)
	}
	return n, nil
}

func main() {
	if len(os.Args) != 3 {
		usage("expected a method and a number of disks")
	}
	method := os.Args[1]
	if method != "binary" && method != "recursive" && method != "iterative" && method != "cyclic" {
		usage(fmt.Sprintf("unknown method %q", method))
	}
	n, err := parseDisks(os.Args[2])
	if err != nil {
		usage(err.Error())
	}

	w := bufio.NewWriterSize(os.Stdout, 1<<16)
	defer w.Flush()
	move := func(disk, from, to int) {
		fmt.Fprintf(w, "disk %d: %d -> %d\n", disk, from, to)
	}
	switch method {
	case "binary":
		binary(n, move)
	case "recursive":
		recursive(n, 0, 2, 1, move)
	case "iterative":
		iterative(n, move)
	case "cyclic":
		transferAdjacent(n, 0, 1, move)
	}
}

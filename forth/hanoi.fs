\ hanoi.fs -- the Tower of Hanoi in Forth (Gforth)
\
\     gforth hanoi.fs binary|recursive|iterative|cyclic N
\
\ prints the moves of N discs, one a line, as it makes them: the disc, the peg it leaves and the
\ peg it goes to, each number as . prints it:
\
\     1 0 2
\
\ binary, recursive and iterative take the discs from peg 0 to peg 2. cyclic solves the cyclic
\ Tower of Hanoi: the discs go from peg 0 to peg 1, each move one peg on (0 -> 1 -> 2 -> 0).
\ Nothing is kept but the words' arguments on the stacks: memory stays O(N). N is at most 63,
\ as 2^N must fit in a cell.

: say ( from to disc -- )   . swap . . cr ;

\ region binary
\ The Tower of Hanoi notes' bitwise formula: move i goes from peg (i and i-1) mod 3 to peg
\ ((i or i-1) + 1) mod 3, and moves disc 1 + (the trailing zero bits of i). For even n that
\ formula ends on peg 1, so pegs 1 and 2 trade names.
\ region iterative
: disc ( bits -- disc )   \ 1 + the trailing zero bits
  1 swap begin dup 1 and 0= while 1 rshift swap 1+ swap repeat drop ;
\ endregion iterative

0 value relabel?
: relabel ( peg -- peg' )   relabel? if 3 swap - 3 mod then ;

\ A cell is read as unsigned here: (i or i-1) + 1 is 2^63 for each disc's last move at n = 63,
\ which as a signed cell is negative, and mod would floor it to the wrong peg.
: umod3 ( u -- u' )   0 3 um/mod drop ;

: binary ( n -- )
  dup 1 and 0= to relabel?
  1 swap lshift 1 ?do
    i dup 1- and umod3 relabel
    i dup 1- or 1+ umod3 relabel
    i disc say
  loop ;
\ endregion binary

\ region recursive
\ The classic recursion, as Simply Logical's hanoi/5 and the notes' r_toh make it, with the pegs
\ and the count on the stacks. The spare peg is the one left over: the three add up to 0+1+2 = 3.
: spare ( peg peg -- peg )   + 3 swap - ;

: hanoi ( source target n -- )
  ?dup 0= if 2drop exit then  >r
  2dup 2dup spare nip   r@ 1- recurse   \ the n-1 above, out of the way onto the spare peg
  2dup                  r@ say          \ disc n across
  tuck spare swap       r> 1- recurse ; \ the n-1 from the spare peg back on top of it
\ endregion recursive

\ region iterative
\ COMP9021's iterative_towers(): every other move is the smallest disc's, always the same way
\ round (-1 mod 3 for odd n, +1 for even n); each move between is the only legal one between
\ the two pegs the smallest disc is not on. A peg is the set of its discs, bit d-1 for disc d, so
\ its lowest bit is its top disc.
create pegs 3 cells allot
: peg ( peg -- addr )   cells pegs + ;
: top ( peg -- bit )   peg @ dup negate and ;   \ 0 for an empty peg

\ From a to b, or from b to a: from the smaller top disc. An empty peg's top bit less one is the
\ largest unsigned number there is, larger than any disc's.
: legal ( a b -- from to )   over top 1- over top 1- u> if swap then ;

: shift ( from to -- )   \ the top disc of peg from onto peg to, and say so
  over top  dup 2 pick peg +!  dup negate 3 pick peg +!  disc say ;

: iterative ( n -- )
  1 over lshift 1- 0 peg !  0 1 peg !  0 2 peg !   \ every disc on peg 0
  dup 1 and if 2 else 1 then  0 rot                \ ( step small n ): step -1 is 2, mod 3
  1 swap lshift 1- 0 ?do
    i 1 and 0= if
      2dup + 3 mod  tuck shift                     \ the smallest disc, one step round
    else
      dup 1+ 3 mod  over 2 + 3 mod  legal shift    \ the one other move there is
    then
  loop 2drop ;
\ endregion iterative

\ region cyclic
\ The cyclic Tower of Hanoi article's two mutually recursive transfers, each moving a stack of
\ discs from tower src to tower dst, every move one tower on (the article's next_tower()).
: next-tower ( tower -- tower' )   1+ 3 mod ;

defer transfer-to-post-adjacent ( src dst discs -- )

\ To the adjacent tower (dst is one on): the discs above go two on, out of the way, the largest
\ one on, and the discs above two on again, onto it.
: transfer-to-adjacent ( src dst discs -- )
  ?dup 0= if 2drop exit then  >r
  2dup next-tower         r@ 1- transfer-to-post-adjacent
  2dup                    r@ say
  nip dup next-tower swap r> 1- transfer-to-post-adjacent ;

\ To the post-adjacent tower (dst is two on): the largest disc goes one on twice, and the discs
\ above make room for it three times: two on, one on (back to src), two on.
:noname ( src dst discs -- )
  ?dup 0= if 2drop exit then  >r
  2dup                    r@ 1- transfer-to-post-adjacent
  over dup next-tower     r@ say
  2dup swap               r@ 1- transfer-to-adjacent
  over next-tower over    r@ say
                          r> 1- transfer-to-post-adjacent ;
is transfer-to-post-adjacent
\ endregion cyclic

\ The command line: METHOD is looked up in a wordlist of its own (a Gforth table, which tells
\ "binary" from "BINARY"), where each method takes n.
table constant methods
get-current methods set-current
: binary ( n -- )      binary ;
: recursive ( n -- )   0 2 rot hanoi ;
: iterative ( n -- )   iterative ;
: cyclic ( n -- )      0 1 rot transfer-to-adjacent ;
set-current

: err ( addr u -- )   stderr write-file throw ;
: fault ( addr u -- )   s" hanoi.fs: " err err ;
: quoted ( addr u -- )   s"  '" err err s" '" err ;
: usage ( -- )   s\" \nusage: gforth hanoi.fs binary|recursive|iterative|cyclic N\n" err  2 (bye) ;

: discs ( addr u -- n flag )   \ flag: the text is a whole number from 0 to 63
  dup 0= if 2drop 0 false exit then
  0 0 2swap >number nip or 0=  over 64 u< and ;

: main ( -- )
  argc @ 3 <> if s" expected a METHOD and N" fault usage then
  next-arg 2dup methods search-wordlist 0= if s" unknown method" fault quoted usage then
  -rot 2drop
  next-arg 2dup discs 0= if
    drop s" N must be a whole number from 0 to 63, not" fault quoted usage
  then
  nip nip swap execute ;

main bye

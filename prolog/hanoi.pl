% The Tower of Hanoi in SWI-Prolog, after Peter Flach's hanoi/5 in "Simply Logical" (1994), as the
% Prolog Learnings post explains it.
%
% As a program, it prints the moves of N discs from the left peg to the right one, one a line, in
% the book's words, as they are made:
%
%     swipl hanoi.pl recursive 3        % left to right, left to middle, right to middle, ...
%
% with METHOD one of binary, recursive, iterative, or cyclic: the cyclic Tower of Hanoi, where the
% discs go from left to middle and a disc only ever moves one peg on (left to middle, middle to
% right, right to left). Loaded into the toplevel (swipl -l hanoi.pl), the
% book's queries work unchanged:
%
%     ?- N = 3, hanoi(N, left, middle, right, Moves).
%
% Pegs are named left, middle and right (pegs 0, 1 and 2).

:- op(900, xfx, to).

% hanoi(N,A,B,C,Moves) <-Moves is the list of moves to
%                        move N disks from peg A to peg C,
%                        using peg B as intermediary peg
%
% The book's eight lines, as printed. Each append/3 copies the Before list again, so building the
% 2^N - 1 moves costs N * 2^N steps, and the whole list is held in memory: fine for the book's
% queries, minutes and gigabytes at N = 20.
hanoi(0, _A, _B, _C, []).
hanoi(N, A, B, C, Moves):-
      N > 0,
      N1 is N - 1,
      hanoi(N1, A, C, B, Before),
      hanoi(N1, B, A, C, After),
      append(Before, [A to C | After], Moves).

% hanoi_moves(N, A, B, C, Moves) <- the same list as hanoi/5, built with a difference list: each
% move is added once, in 2^N - 1 steps.
hanoi_moves(N, A, B, C, Moves) :-
      hanoi_moves(N, A, B, C, Moves, []).

hanoi_moves(0, _A, _B, _C, Moves, Moves) :- !.
hanoi_moves(N, A, B, C, Moves, Rest) :-
      N > 0,
      N1 is N - 1,
      hanoi_moves(N1, A, C, B, Moves, [A to C | After]),
      hanoi_moves(N1, B, A, C, After, Rest).

% The methods, each printing the moves of N discs from left to right as it makes them; no list of
% moves is built, so memory stays O(N) however many moves there are.

peg(0, left).
peg(1, middle).
peg(2, right).

say(Src, Dst) :-
      peg(Src, From),
      peg(Dst, To),
      format("~w~n", [From to To]).

% region recursive
% recursive: the book's recursion, its pegs in the book's order (N discs from A to C, by way of B),
% printing each move where hanoi/5 appends it.
recursive(N) :-
      recursive(N, 0, 1, 2).

recursive(0, _A, _B, _C) :- !.
recursive(N, A, B, C) :-
      N1 is N - 1,
      recursive(N1, A, C, B),
      say(A, C),
      recursive(N1, B, A, C).
% endregion recursive

% region binary
% binary, after the Tower of Hanoi notes' b_toh: move I goes from peg (I /\ (I - 1)) mod 3 to peg
% ((I \/ (I - 1)) + 1) mod 3. That formula ends on the middle peg when N is even, so for even N the
% middle and right pegs trade names.
binary(N) :-
      Last is (1 << N) - 1,
      forall(between(1, Last, I),
             ( Src0 is (I /\ (I - 1)) mod 3,
               Dst0 is ((I \/ (I - 1)) + 1) mod 3,
               relabel(N, Src0, Src),
               relabel(N, Dst0, Dst),
               say(Src, Dst) )).

relabel(N, Peg, Peg) :- N mod 2 =:= 1, !.
relabel(_, Peg, Relabelled) :- Relabelled is (3 - Peg) mod 3.
% endregion binary

% region iterative
% iterative, after COMP9021's towers of Hanoi: every odd move is the smallest disc's, always the
% same way round (left, middle, right for even N; left, right, middle for odd N); every even move
% is the one legal move between the two other pegs. The pegs are three lists, top disc first.
iterative(N) :-
      findall(Disc, between(1, N, Disc), Discs),
      ( N mod 2 =:= 0 -> Step = 1 ; Step = 2 ),
      Last is (1 << N) - 1,
      iterate(1, Last, Step, 0, pegs(Discs, [], [])).

iterate(Move, Last, _Step, _Smallest, _Pegs) :-
      Move > Last, !.
iterate(Move, Last, Step, Smallest, Pegs0) :-
      (   Move mod 2 =:= 1
      ->  Src = Smallest,
          Dst is (Smallest + Step) mod 3,
          Smallest1 = Dst
      ;   A is (Smallest + 1) mod 3,
          B is (Smallest + 2) mod 3,
          legal(A, B, Pegs0, Src, Dst),
          Smallest1 = Smallest
      ),
      shift(Src, Dst, Pegs0, Pegs),
      say(Src, Dst),
      Next is Move + 1,
      iterate(Next, Last, Step, Smallest1, Pegs).

% legal(A, B, Pegs, Src, Dst): the one way a disc may move between pegs A and B.
legal(A, B, Pegs, Src, Dst) :-
      top(A, Pegs, TopA),
      top(B, Pegs, TopB),
      (   TopA < TopB
      ->  Src = A, Dst = B
      ;   Src = B, Dst = A
      ).

top(Peg, Pegs, Top) :-
      Arg is Peg + 1,
      arg(Arg, Pegs, Stack),
      ( Stack = [Top | _] -> true ; Top = inf ).

shift(Src, Dst, Pegs0, Pegs) :-
      SrcArg is Src + 1,
      DstArg is Dst + 1,
      arg(SrcArg, Pegs0, [Disc | SrcRest]),
      arg(DstArg, Pegs0, DstStack),
      Pegs0 =.. [pegs | Stacks0],
      nth1_set(SrcArg, Stacks0, SrcRest, Stacks1),
      nth1_set(DstArg, Stacks1, [Disc | DstStack], Stacks),
      Pegs =.. [pegs | Stacks].

nth1_set(1, [_ | Rest], Value, [Value | Rest]) :- !.
nth1_set(I, [X | Rest0], Value, [X | Rest]) :-
      I1 is I - 1,
      nth1_set(I1, Rest0, Value, Rest).
% endregion iterative

% region cyclic
% cyclic: after the cyclic Tower of Hanoi article's transfer templates, N discs from left to middle,
% each move one peg on. One peg on: N - 1 discs two pegs on, the largest one on, the N - 1 two on
% again. Two pegs on: N - 1 two on, the largest one on, the N - 1 one on, the largest one on, the
% N - 1 two on.
cyclic(N) :-
      cyclic(N, 0, 1).

cyclic(0, _Src, _Dst) :- !.
cyclic(N, Src, Dst) :-
      N1 is N - 1,
      Next is (Src + 1) mod 3,
      (   Dst =:= Next
      ->  After is (Dst + 1) mod 3,
          cyclic(N1, Src, After),
          say(Src, Dst),
          cyclic(N1, After, Dst)
      ;   cyclic(N1, Src, Dst),
          say(Src, Next),
          cyclic(N1, Dst, Src),
          say(Next, Dst),
          cyclic(N1, Src, Dst)
      ).
% endregion cyclic

% The program: swipl hanoi.pl METHOD N.

:- initialization(main, main).

main :-
      current_prolog_flag(argv, Argv),
      (   Argv = [MethodArg, NArg],
          atom(MethodArg), Method = MethodArg,
          memberchk(Method, [binary, recursive, iterative, cyclic]),
          discs(NArg, N)
      ->  call(Method, N)
      ;   usage(Argv)
      ).

% discs(Text, N) <- Text is ASCII decimal digits, nothing else, and N their number. atom_number/2
% alone would take any Prolog number: -0, 0x3, 1_0, 0'a (97), 3.0 and digits of other scripts.
discs(Text, N) :-
      atom_codes(Text, Codes),
      Codes = [_ | _],
      maplist(ascii_digit, Codes),
      number_codes(N, Codes).

ascii_digit(Code) :-
      between(0'0, 0'9, Code).

usage(Argv) :-
      atomic_list_concat(Argv, ' ', Given),
      format(user_error,
             "usage: swipl hanoi.pl binary|recursive|iterative|cyclic N~n  N is a whole number of discs, 0 or more (given: ~w)~n",
             [Given]),
      halt(2).

%%% The Tower of Hanoi in Erlang: n discs from peg 0 to peg 2 by three methods, and the cyclic
%%% Tower of Hanoi: n discs from peg 0 to peg 1, each move one peg on.
%%%
%%%     escript hanoi.erl binary|recursive|iterative|cyclic N
%%%
%%% or, compiled first (no shebang line, so that erlc takes the file as it is):
%%%
%%%     erlc hanoi.erl && escript hanoi.beam binary|recursive|iterative|cyclic N
%%%
%%% Each move is printed as it is made, as the Erlang term {Disc, From, To} that io:format("~p~n")
%%% writes: {1,0,2}. Moves are gathered into an iolist and written a chunk at a time, so a million
%%% lines cost a few hundred writes, and memory stays O(N) whatever N is.
-module(hanoi).
-mode(compile).  % run from source, escript compiles the module rather than interpret it
-export([main/1]).

-define(USAGE, "usage: escript hanoi.erl binary|recursive|iterative|cyclic N").
-define(CHUNK, 4096).

main([Method, Text]) ->
    case {method(Method), discs(Text)} of
        {error, _} -> usage("unknown method ~tp", [Method]);
        {_, error} -> usage("N must be a whole number of discs, 0 or more, not ~tp", [Text]);
        {Solve, N} -> flush(Solve(N, {0, []}))
    end;
main(Args) ->
    usage("expected METHOD N, got ~b argument(s)", [length(Args)]).

method("binary") -> fun binary/2;
method("recursive") -> fun(N, Out) -> recursive(N, 0, 2, 1, Out) end;
method("iterative") -> fun iterative/2;
method("cyclic") -> fun(N, Out) -> adjacent(N, 0, 1, Out) end;
method(_) -> error.

%% N is ASCII decimal digits, nothing else: list_to_integer/1 alone would take a sign (+3, -0).
%% An empty argument is refused, and so is one escript could not decode ({error, [], <<255>>}).
discs([_ | _] = Text) ->
    case lists:all(fun(C) -> C >= $0 andalso C =< $9 end, Text) of
        true -> list_to_integer(Text);
        false -> error
    end;
discs(_) ->
    error.

usage(Format, Args) ->
    io:format(standard_error, "hanoi: " ++ Format ++ "~n" ?USAGE "~n", Args),
    halt(2).

%% The output: a move joins the pending chunk {Count, Lines}; a full chunk is written out.
%% io_lib:write/1 writes these small terms as ~p does, at a fraction of its cost.
emit(Move, {?CHUNK, Lines}) ->
    ok = io:put_chars(Lines),
    emit(Move, {0, []});
emit(Move, {Count, Lines}) ->
    {Count + 1, [Lines, io_lib:write(Move), $\n]}.

flush({_, Lines}) ->
    ok = io:put_chars(Lines).

%% region binary
%% The Tower of Hanoi notes' bitwise formula: move I (1 =< I < 2^N) takes disc 1 + (trailing zero
%% bits of I) from peg (I band (I - 1)) rem 3 to peg ((I bor (I - 1)) + 1) rem 3. For even N the
%% formula ends on peg 1, so pegs 1 and 2 swap names.
binary(N, Out) ->
    Pegs = case N rem 2 of
               0 -> {0, 2, 1};
               1 -> {0, 1, 2}
           end,
    binary(1, 1 bsl N, Pegs, Out).

binary(Last, Last, _Pegs, Out) ->
    Out;
binary(I, Last, Pegs, Out) ->
    From = element((I band (I - 1)) rem 3 + 1, Pegs),
    To = element(((I bor (I - 1)) + 1) rem 3 + 1, Pegs),
    binary(I + 1, Last, Pegs, emit({disc(I, 1), From, To}, Out)).

%% 1 + the trailing zero bits of I.
disc(I, Disc) when I band 1 =:= 1 -> Disc;
disc(I, Disc) -> disc(I bsr 1, Disc + 1).
%% endregion binary

%% region recursive
%% The classic recursion, as Simply Logical's hanoi/5 and the notes' r_toh have it: N - 1 discs
%% out of the way onto Spare, the largest from Source to Target, then the N - 1 from Spare onto it.
recursive(0, _Source, _Target, _Spare, Out) ->
    Out;
recursive(N, Source, Target, Spare, Out0) ->
    Out1 = recursive(N - 1, Source, Spare, Target, Out0),
    Out2 = emit({N, Source, Target}, Out1),
    recursive(N - 1, Spare, Target, Source, Out2).
%% endregion recursive

%% region iterative
%% COMP9021's iterative towers: every other move is the smallest disc's, always the same way round
%% (-1 mod 3 for odd N, +1 for even N); each move between is the only legal one between the two
%% pegs the smallest disc is not on. The towers are three lists, each top disc first.
iterative(0, Out) ->
    Out;
iterative(N, Out) ->
    Step = case N rem 2 of
               1 -> 2;  % -1 mod 3
               0 -> 1
           end,
    smallest(0, Step, (1 bsl N) - 1, {lists:seq(1, N), [], []}, Out).

smallest(Pos, Step, Left, Towers0, Out) ->
    Next = (Pos + Step) rem 3,
    {Disc, Towers} = move(Pos, Next, Towers0),
    other(Next, Step, Left - 1, Towers, emit({Disc, Pos, Next}, Out)).

other(_Small, _Step, 0, _Towers, Out) ->
    Out;
other(Small, Step, Left, Towers0, Out) ->
    {From, To} = legal((Small + 1) rem 3, (Small + 2) rem 3, Towers0),
    {Disc, Towers} = move(From, To, Towers0),
    smallest(Small, Step, Left - 1, Towers, emit({Disc, From, To}, Out)).

%% The legal move between pegs A and B: from the one whose top disc is the smaller.
legal(A, B, Towers) ->
    case {element(A + 1, Towers), element(B + 1, Towers)} of
        {[], _} -> {B, A};
        {[Top | _], [Other | _]} when Other < Top -> {B, A};
        _ -> {A, B}
    end.

move(From, To, Towers) ->
    [Disc | Rest] = element(From + 1, Towers),
    Onto = element(To + 1, Towers),
    {Disc, setelement(To + 1, setelement(From + 1, Towers, Rest), [Disc | Onto])}.
%% endregion iterative

%% region cyclic
%% The cyclic Tower of Hanoi article's two transfers, each disc moving one peg on (0 -> 1 -> 2 -> 0).
%% To the adjacent tower: K - 1 discs to the post-adjacent tower, out of the way, disc K one on,
%% and the K - 1 two on again, on top of it.
adjacent(0, _Src, _Dst, Out) ->
    Out;
adjacent(K, Src, Dst, Out0) ->
    Spare = next(Dst),
    Out1 = post_adjacent(K - 1, Src, Spare, Out0),
    Out2 = emit({K, Src, Dst}, Out1),
    post_adjacent(K - 1, Spare, Dst, Out2).

%% To the post-adjacent tower: K - 1 discs two on, disc K one on, the K - 1 one on (back where they
%% began), disc K one on again, and the K - 1 two on.
post_adjacent(0, _Src, _Dst, Out) ->
    Out;
post_adjacent(K, Src, Dst, Out0) ->
    Mid = next(Src),
    Out1 = post_adjacent(K - 1, Src, Dst, Out0),
    Out2 = emit({K, Src, Mid}, Out1),
    Out3 = adjacent(K - 1, Dst, Src, Out2),
    Out4 = emit({K, Mid, Dst}, Out3),
    post_adjacent(K - 1, Src, Dst, Out4).

next(Tower) -> (Tower + 1) rem 3.
%% endregion cyclic

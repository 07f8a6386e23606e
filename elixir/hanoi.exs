# The Tower of Hanoi in Elixir: n discs from peg :a to peg :c by three methods, and the cyclic
# Tower of Hanoi: n discs from peg :a to peg :b, each move one peg on.
#
#     elixir hanoi.exs binary|recursive|iterative|cyclic N
#
# Each move is printed as it is made, as inspect/1 shows the tuple {disc, from, to}: {1, :a, :c}.

defmodule Hanoi do
  @moduledoc """
  The four methods. Each takes the output first, so that the steps of a method read as a pipeline,
  and returns it: the output is the pending chunk of lines, written out every 4096 moves, so
  that memory stays O(n) however many moves there are. Pegs are 0, 1 and 2 while a method reckons
  with them, and the atoms :a, :b and :c when a move is printed.
  """

  import Bitwise

  @pegs {:a, :b, :c}
  @chunk 4096

  def main([method, text]) do
    with {:ok, solve} <- method(method),
         {:ok, n} <- discs(text) do
      {0, []} |> solve.(n) |> flush()
    else
      {:error, why} -> usage(why)
    end
  end

  def main(args), do: usage("expected METHOD N, got #{length(args)} argument(s)")

  defp method("binary"), do: {:ok, &binary/2}
  defp method("recursive"), do: {:ok, &recursive(&1, &2, 0, 2, 1)}
  defp method("iterative"), do: {:ok, &iterative/2}
  defp method("cyclic"), do: {:ok, &adjacent(&1, &2, 0, 1)}
  defp method(other), do: {:error, "unknown method #{inspect(other)}"}

  # N is ASCII decimal digits, nothing else: Integer.parse/1 alone would take a sign (+3, -0).
  defp discs(text) do
    if text =~ ~r/\A[0-9]+\z/ do
      {:ok, String.to_integer(text)}
    else
      {:error, "N must be a whole number of discs, 0 or more, not #{inspect(text)}"}
    end
  end

  defp usage(why) do
    IO.puts(:stderr, "hanoi: #{why}\nusage: elixir hanoi.exs binary|recursive|iterative|cyclic N")
    System.halt(2)
  end

  # The output: a move joins the pending chunk {count, lines}; a full chunk is written out.
  defp emit({@chunk, lines}, move) do
    IO.binwrite(lines)
    emit({0, []}, move)
  end

  defp emit({count, lines}, move), do: {count + 1, [lines, line(move)]}

  defp flush({_count, lines}), do: IO.binwrite(lines)

  # The move as inspect/1 shows it, {1, :a, :c}, put together by hand: inspect/1 would take ten
  # times as long as everything else for a million lines. The pegs' names are inspected once.
  @names @pegs |> Tuple.to_list() |> Enum.map(&inspect/1) |> List.to_tuple()

  defp line({disc, from, to}) do
    [?{, Integer.to_string(disc), ", ", elem(@names, from), ", ", elem(@names, to), "}\n"]
  end

  # region binary
  # The Tower of Hanoi notes' bitwise formula: move i (1 <= i < 2^n) takes disc 1 + (trailing zero
  # bits of i) from peg (i &&& i - 1) mod 3 to peg ((i ||| i - 1) + 1) mod 3. For even n the
  # formula ends on peg 1, so pegs 1 and 2 swap names.
  def binary(out, n) do
    pegs = if rem(n, 2) == 0, do: {0, 2, 1}, else: {0, 1, 2}

    1..(2 ** n - 1)//1
    |> Stream.map(fn i ->
      {disc(i), elem(pegs, rem(i &&& i - 1, 3)), elem(pegs, rem((i ||| i - 1) + 1, 3))}
    end)
    |> Enum.reduce(out, &emit(&2, &1))
  end

  # 1 + the trailing zero bits of i.
  defp disc(i) when (i &&& 1) == 1, do: 1
  defp disc(i), do: 1 + disc(i >>> 1)
  # endregion binary

  # region recursive
  # The classic recursion, as Simply Logical's hanoi/5 and the notes' r_toh have it: n - 1 discs
  # out of the way onto the spare peg, the largest from the source to the target, then the n - 1
  # from the spare onto it. The output comes first, for the pipeline.
  def recursive(out, 0, _source, _target, _spare), do: out

  def recursive(out, n, source, target, spare) do
    out
    |> recursive(n - 1, source, spare, target)
    |> emit({n, source, target})
    |> recursive(n - 1, spare, target, source)
  end

  # endregion recursive

  # region iterative
  # COMP9021's iterative towers: every other move is the smallest disc's, always the same way round
  # (-1 mod 3 for odd n, +1 for even n); each move between is the only legal one between the two
  # pegs the smallest disc is not on. The towers are a tuple of three lists, each top disc first,
  # and each move is one step of Stream.unfold, until the 2^n - 1 moves are taken.
  def iterative(out, n) do
    way = if rem(n, 2) == 1, do: 2, else: 1

    {:smallest, 0, {Enum.to_list(1..n//1), [], []}}
    |> Stream.unfold(&iterative_step(&1, way))
    |> Stream.take(2 ** n - 1)
    |> Enum.reduce(out, &emit(&2, &1))
  end

  defp iterative_step({:smallest, at, towers}, way) do
    next = rem(at + way, 3)
    {disc, towers} = shift(towers, at, next)
    {{disc, at, next}, {:other, next, towers}}
  end

  defp iterative_step({:other, smallest, towers}, _way) do
    {from, to} = legal(towers, rem(smallest + 1, 3), rem(smallest + 2, 3))
    {disc, towers} = shift(towers, from, to)
    {{disc, from, to}, {:smallest, smallest, towers}}
  end

  # The legal move between pegs a and b: from the one whose top disc is the smaller.
  defp legal(towers, a, b) do
    case {elem(towers, a), elem(towers, b)} do
      {[], _} -> {b, a}
      {[top | _], [other | _]} when other < top -> {b, a}
      _ -> {a, b}
    end
  end

  defp shift(towers, from, to) do
    [disc | rest] = elem(towers, from)
    {disc, towers |> put_elem(from, rest) |> put_elem(to, [disc | elem(towers, to)])}
  end

  # endregion iterative

  # region cyclic
  # The cyclic Tower of Hanoi article's two transfers, each disc moving one peg on (0 -> 1 -> 2 -> 0).
  # To the adjacent tower: k - 1 discs to the post-adjacent tower, out of the way, disc k one on,
  # and the k - 1 two on again, on top of it.
  def adjacent(out, 0, _src, _dst), do: out

  def adjacent(out, k, src, dst) do
    spare = next(dst)

    out
    |> post_adjacent(k - 1, src, spare)
    |> emit({k, src, dst})
    |> post_adjacent(k - 1, spare, dst)
  end

  # To the post-adjacent tower: k - 1 discs two on, disc k one on, the k - 1 one on (back where they
  # began), disc k one on again, and the k - 1 two on.
  def post_adjacent(out, 0, _src, _dst), do: out

  def post_adjacent(out, k, src, dst) do
    middle = next(src)

    out
    |> post_adjacent(k - 1, src, dst)
    |> emit({k, src, middle})
    |> adjacent(k - 1, dst, src)
    |> emit({k, middle, dst})
    |> post_adjacent(k - 1, src, dst)
  end

  defp next(tower), do: rem(tower + 1, 3)
  # endregion cyclic
end

Hanoi.main(System.argv())

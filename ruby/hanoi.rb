# frozen_string_literal: true

# The Tower of Hanoi in Ruby: n discs from peg 0 to peg 2 by three methods,
# and the cyclic Tower of Hanoi: n discs from peg 0 to peg 1, each move one
# peg on (0 -> 1 -> 2 -> 0).
#
#   ruby hanoi.rb binary|recursive|iterative|cyclic N
#
# Each method yields each move to its block as it makes it, and main prints
# it, one a line: "Move disc 1 from peg 0 to peg 2". No list of moves is ever
# built, so memory stays O(N).
module Hanoi
  module_function

  # region binary
  # The Tower of Hanoi notes' bitwise formula: move i goes from peg
  # (i & (i - 1)) % 3 to peg ((i | (i - 1)) + 1) % 3, and moves disc
  # 1 + (the trailing zero bits of i). The formula ends on peg 1 when n is
  # even, so for even n pegs 1 and 2 swap names.
  def binary(n)
    peg = n.even? ? [0, 2, 1] : [0, 1, 2]
    (1...2**n).each do |i|
      disc = (i & -i).bit_length
      yield disc, peg[(i & (i - 1)) % 3], peg[((i | (i - 1)) + 1) % 3]
    end
  end
  # endregion binary

  # region recursive
  # The classic recursion, as Simply Logical's hanoi/5 and the Tower of Hanoi
  # notes' r_toh have it: n - 1 discs out of the way to the spare peg, the
  # largest to the target, the n - 1 back on top of it.
  def recursive(n, source = 0, target = 2, spare = 1, &move)
    return if n.zero?

    recursive(n - 1, source, spare, target, &move)
    yield n, source, target
    recursive(n - 1, spare, target, source, &move)
  end
  # endregion recursive

  # region iterative
  # COMP9021's iterative_towers: every other move is the smallest disc's,
  # always the same way round (direction -1 for odd n, +1 for even n); each
  # move between is the only legal move between the two pegs the smallest disc
  # is not on. A stack holds its discs bottom first, the top last.
  def iterative(n)
    direction = n.odd? ? -1 : 1
    stacks = [n.downto(1).to_a, [], []]
    small_disc_pos = 0
    (2**n - 1).times do |i|
      if i.even?
        from = small_disc_pos
        to = small_disc_pos = (small_disc_pos + direction) % 3
      else
        from = (small_disc_pos + 1) % 3
        to = (small_disc_pos + 2) % 3
        if stacks[from].empty? ||
           (stacks[to].any? && stacks[to].last < stacks[from].last)
          from, to = to, from
        end
      end
      stacks[to].push(stacks[from].pop)
      yield stacks[to].last, from, to
    end
  end
  # endregion iterative

  # region cyclic
  # The cyclic Tower of Hanoi article's two transfers: a disc may only go one
  # peg on, from p to (p + 1) % 3, and the article moves n discs either to the
  # adjacent tower or to the post-adjacent one, each transfer made of the other.
  def cyclic(n, &move)
    transfer_adjacent(n, 0, &move)
  end

  def next_peg(peg)
    (peg + 1) % 3
  end

  # To the adjacent peg: n - 1 discs to the post-adjacent peg, out of the way,
  # the largest one on, and the n - 1 on top of it, which is the post-adjacent
  # peg from where they wait.
  def transfer_adjacent(n, from, &move)
    return if n.zero?

    to = next_peg(from)
    transfer_post_adjacent(n - 1, from, &move)
    yield n, from, to
    transfer_post_adjacent(n - 1, next_peg(to), &move)
  end

  # To the post-adjacent peg: the n - 1 there first, the largest one on, the
  # n - 1 one on (back where they began), the largest one on again, and the
  # n - 1 to the post-adjacent peg, on top of it.
  def transfer_post_adjacent(n, from, &move)
    return if n.zero?

    via = next_peg(from)
    to = next_peg(via)
    transfer_post_adjacent(n - 1, from, &move)
    yield n, from, via
    transfer_adjacent(n - 1, to, &move)
    yield n, via, to
    transfer_post_adjacent(n - 1, from, &move)
  end
  # endregion cyclic
end

METHODS = %w[binary recursive iterative cyclic].freeze
USAGE = "usage: ruby hanoi.rb #{METHODS.join('|')} N " \
        '(N a whole number of discs, 0 or more)'
BLOCK_SIZE = 1 << 16

def usage(why)
  warn "hanoi.rb: #{why}", USAGE
  exit 2
end

# The method and the number of discs on the command line, or a usage error.
def parse(args)
  unless args.size == 2
    usage("expected a method and a number of discs, not #{args.size} arguments")
  end
  method, text = args
  usage("unknown method '#{method}'") unless METHODS.include?(method)
  unless text.match?(/\A[0-9]+\z/)
    usage("N must be a whole number of discs, 0 or more, not '#{text}'")
  end
  [method, text.to_i]
end

# Prints each move as the method makes it, the lines going out a block of
# about BLOCK_SIZE bytes at a time: one write, not one a line. Each move's
# sentence is made the first time, as sentence[disc][from][to], so that a
# million moves are a million appends rather than a million new strings.
def main(args)
  method, n = parse(args)
  sentence = Hash.new do |made, disc|
    made[disc] = Array.new(3) do |from|
      Array.new(3) { |to| "Move disc #{disc} from peg #{from} to peg #{to}\n" }
    end
  end
  lines = +''
  Hanoi.public_send(method, n) do |disc, from, to|
    lines << sentence[disc][from][to]
    next if lines.bytesize < BLOCK_SIZE

    $stdout.write(lines)
    lines.clear
  end
  $stdout.write(lines)
rescue Errno::EPIPE
  exit # the reader went away (| head): stop quietly
end

main(ARGV) if $PROGRAM_NAME == __FILE__

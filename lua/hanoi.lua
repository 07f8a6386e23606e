-- The Tower of Hanoi in Lua 5.4: n discs from the left peg to the right one by
-- three methods, and the cyclic Tower of Hanoi: n discs from the left peg to
-- the middle one, each move one peg on (left to middle, middle to right, right
-- to left).
--
--     lua5.4 hanoi.lua binary|recursive|iterative|cyclic N
--
-- Each method calls move(disc, from, to), pegs 0, 1 and 2, as it makes a move,
-- and the move is printed at once, one a line, in the words of Simply Logical's
-- pegs: "move disc 1 from left to right". No list of moves is ever built, so
-- memory stays O(N); standard output is fully buffered.

-- region binary
-- The Tower of Hanoi notes' bitwise formula: move i goes from peg
-- (i & (i - 1)) % 3 to peg ((i | (i - 1)) + 1) % 3, and moves disc
-- 1 + (the trailing zero bits of i). The formula ends on peg 1 when n is even,
-- so for even n pegs 1 and 2 swap names.
local function binary(n, move)
  local peg = n % 2 == 0 and { [0] = 0, 2, 1 } or { [0] = 0, 1, 2 }
  for i = 1, (1 << n) - 1 do
    local disc = 1
    while (i >> (disc - 1)) & 1 == 0 do
      disc = disc + 1
    end
    move(disc, peg[(i & (i - 1)) % 3], peg[((i | (i - 1)) + 1) % 3])
  end
end
-- endregion binary

-- region recursive
-- The classic recursion, as Simply Logical's hanoi/5 and the Tower of Hanoi
-- notes' r_toh have it: n - 1 discs out of the way to the spare peg, the
-- largest to the target, the n - 1 back on top.
local function recursive(n, source, target, spare, move)
  if n == 0 then return end
  recursive(n - 1, source, spare, target, move)
  move(n, source, target)
  recursive(n - 1, spare, target, source, move)
end
-- endregion recursive

-- region iterative
-- COMP9021's iterative_towers: every other move is the smallest disc's, always
-- the same way round (direction -1 for odd n, +1 for even n); each move between
-- is the only legal move between the two pegs the smallest disc is not on. A
-- stack holds its discs bottom first, the top last.
local function iterative(n, move)
  local direction = n % 2 == 1 and -1 or 1
  local stacks = { [0] = {}, {}, {} }
  for disc = n, 1, -1 do
    table.insert(stacks[0], disc)
  end
  local small_disc_pos = 0
  for i = 0, (1 << n) - 2 do
    local from, to
    if i % 2 == 0 then
      from = small_disc_pos
      to = (small_disc_pos + direction) % 3
      small_disc_pos = to
    else
      from = (small_disc_pos + 1) % 3
      to = (small_disc_pos + 2) % 3
      local from_stack, to_stack = stacks[from], stacks[to]
      local from_top, to_top = from_stack[#from_stack], to_stack[#to_stack]
      if not from_top or (to_top and to_top < from_top) then
        from, to = to, from
      end
    end
    local disc = table.remove(stacks[from])
    table.insert(stacks[to], disc)
    move(disc, from, to)
  end
end
-- endregion iterative

-- region cyclic
-- The cyclic Tower of Hanoi article's two transfers: a disc may only go one peg
-- on, from p to (p + 1) % 3, and the article moves n discs either to the
-- adjacent tower or to the post-adjacent one, each transfer made of the other.
local function next_peg(peg)
  return (peg + 1) % 3
end

local transfer_post_adjacent

-- To the adjacent peg: n - 1 discs to the post-adjacent peg, out of the way,
-- the largest one on, and the n - 1 on top of it, which is the post-adjacent
-- peg from where they wait.
local function transfer_adjacent(n, from, move)
  if n == 0 then return end
  local to = next_peg(from)
  transfer_post_adjacent(n - 1, from, move)
  move(n, from, to)
  transfer_post_adjacent(n - 1, next_peg(to), move)
end

-- To the post-adjacent peg: the n - 1 there first, the largest one on, the
-- n - 1 one on (back where they began), the largest one on again, and the
-- n - 1 to the post-adjacent peg, on top of it.
function transfer_post_adjacent(n, from, move)
  if n == 0 then return end
  local via = next_peg(from)
  local to = next_peg(via)
  transfer_post_adjacent(n - 1, from, move)
  move(n, from, via)
  transfer_adjacent(n - 1, to, move)
  move(n, via, to)
  transfer_post_adjacent(n - 1, from, move)
end

local function cyclic(n, move)
  transfer_adjacent(n, 0, move)
end
-- endregion cyclic

local METHODS = {
  binary = binary,
  recursive = function(n, move) recursive(n, 0, 2, 1, move) end,
  iterative = iterative,
  cyclic = cyclic,
}

-- binary and iterative count the moves, 2^N - 1, in Lua's 64-bit integers,
-- which wrap past 2^63 - 1: binary's (i | (i - 1)) + 1 is 2^63 for each disc's
-- last move at N = 63, negative in Lua, so binary stops at N = 62.
local MAX_DISCS = { binary = 62, iterative = 63 }

local PEGS = { [0] = "left", "middle", "right" }

local function usage(why)
  io.stderr:write("hanoi.lua: ", why, "\n",
    "usage: lua5.4 hanoi.lua binary|recursive|iterative|cyclic N",
    " (N a whole number of discs, 0 or more)\n")
  os.exit(2)
end

local function main(args)
  if #args ~= 2 then
    usage(("expected a method and a number of discs, not %d arguments")
      :format(#args))
  end
  local method, text = args[1], args[2]
  if not METHODS[method] then
    usage(("unknown method '%s'"):format(method))
  end
  if not text:match("^%d+$") then
    usage(("N must be a whole number of discs, 0 or more, not '%s'")
      :format(text))
  end
  local n = math.tointeger(tonumber(text))
  if not n then
    usage(("N = %s is more than a Lua integer holds"):format(text))
  end
  local max = MAX_DISCS[method]
  if max and n > max then
    usage(("%s counts the moves in 64-bit integers: N at most %d, not %d")
      :format(method, max, n))
  end

  io.stdout:setvbuf("full")
  METHODS[method](n, function(disc, from, to)
    io.write("move disc ", disc, " from ", PEGS[from], " to ", PEGS[to], "\n")
  end)
end

main(arg)

// The Tower of Hanoi in plain C++: n discs from peg 0 to peg 2 by the three classic methods, n given
// when the program runs.
//
//     c++ -std=c++20 -O2 hanoi.cpp -o hanoi && ./hanoi binary|recursive|iterative N
//
// Each method prints the same 2^N - 1 moves, one a line, as DISK SOURCE TARGET (1 0 2: disc 1 from
// peg 0 to peg 2), as it makes them, through one output buffer: memory is O(N) whatever N is.
// (The cyclic Tower of Hanoi is cyclic.cpp, after the article's compile-time templates.)

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

namespace {

constexpr int MOST_DISCS = 63;  // 2^63 - 1 moves is the most a 64-bit count holds

// Writes moves as DISK SOURCE TARGET lines into a buffer that goes out when it is full.
class Moves
{
public:
  ~Moves() { flush(); }

  void operator()(int disc, int src, int dst)
  {
    if(used + 8 > sizeof buffer) flush();
    if(disc >= 10) buffer[used++] = static_cast<char>('0' + disc / 10);
    buffer[used++] = static_cast<char>('0' + disc % 10);
    buffer[used++] = ' ';
    buffer[used++] = static_cast<char>('0' + src);
    buffer[used++] = ' ';
    buffer[used++] = static_cast<char>('0' + dst);
    buffer[used++] = '\n';
  }

private:
  void flush()
  {
    std::fwrite(buffer, 1, used, stdout);
    used = 0;
  }

  char buffer[1 << 16];
  std::size_t used = 0;
};

// region binary
// After the Tower of Hanoi notes' b_toh: move i goes from peg (i & (i - 1)) % 3 to peg
// ((i | (i - 1)) + 1) % 3 and moves disc 1 + the number of trailing zero bits of i. The formula
// ends on peg 1 when n is even, so for even n pegs 1 and 2 trade names.
void binary(int n, Moves& move)
{
  const int relabel[2][3] = {{0, 2, 1}, {0, 1, 2}};
  const int* peg = relabel[n % 2];
  const std::uint64_t last = (std::uint64_t{1} << n) - 1;
  for(std::uint64_t i = 1; i <= last; ++i)
    move(std::countr_zero(i) + 1, peg[(i & (i - 1)) % 3], peg[((i | (i - 1)) + 1) % 3]);
}
// endregion binary

// region recursive
// After the notes' r_toh(n, origin, target, spare) and Flach's hanoi/5 in Simply Logical: the
// n - 1 discs out of the way to the spare peg, the largest to the target, the n - 1 back on top.
void recursive(int n, int source, int target, int spare, Moves& move)
{
  if(n == 0) return;
  recursive(n - 1, source, spare, target, move);
  move(n, source, target);
  recursive(n - 1, spare, target, source, move);
}
// endregion recursive

// region iterative
// After COMP9021's iterative_towers: every odd move is the smallest disc's, always the same way
// round: 0 -> 1 -> 2 -> 0 for even n, 0 -> 2 -> 1 -> 0 for odd n. Every even move is the one legal
// move between the two other pegs. Each peg is a stack of discs, the top last.
void iterative(int n, Moves& move)
{
  int stack[3][MOST_DISCS];
  int height[3] = {n, 0, 0};
  for(int d = 0; d < n; ++d) stack[0][d] = n - d;
  const int step = n % 2 == 0 ? 1 : 2;
  int smallest = 0;
  const std::uint64_t last = (std::uint64_t{1} << n) - 1;
  for(std::uint64_t i = 1; i <= last; ++i)
  {
    int src, dst;
    if(i % 2 == 1)
    {
      src = smallest;
      dst = smallest = (smallest + step) % 3;
    }
    else
    {
      src = (smallest + 1) % 3;
      dst = (smallest + 2) % 3;
      if(height[src] == 0 || (height[dst] > 0 && stack[dst][height[dst] - 1] < stack[src][height[src] - 1]))
        std::swap(src, dst);
    }
    const int disc = stack[src][--height[src]];
    stack[dst][height[dst]++] = disc;
    move(disc, src, dst);
  }
}
// endregion iterative

int usage(const char* problem)
{
  std::fprintf(stderr,
               "usage: hanoi binary|recursive|iterative N   (N a whole number of discs, 0 to %d)\n"
               "hanoi: %s\n",
               MOST_DISCS, problem);
  return 2;
}

}  // namespace

int main(int argc, char** argv)
{
  if(argc != 3) return usage("expected a method and a number of discs");
  const std::string_view method = argv[1], count = argv[2];
  if(method != "binary" && method != "recursive" && method != "iterative")
    return usage(("unknown method '" + std::string(method) + "'").c_str());
  if(count.empty() || count.find_first_not_of("0123456789") != std::string_view::npos)
    return usage(("N must be a whole number of discs, 0 or more, not '" + std::string(count) + "'").c_str());
  const auto digits = count.substr(std::min(count.find_first_not_of('0'), count.size() - 1));
  if(digits.size() > 2 || std::stoi(std::string(digits)) > MOST_DISCS)
    return usage(("N = " + std::string(count) + " is more discs than a 64-bit count of moves allows").c_str());
  const int n = std::stoi(std::string(digits));

  Moves move;
  if(method == "binary") binary(n, move);
  else if(method == "recursive") recursive(n, 0, 2, 1, move);
  else iterative(n, move);
  return 0;
}

// The cyclic Tower of Hanoi with C++ template metaprogramming, after the article "Cyclic Tower of
// Hanoi - analysis and implementation": the move sequence is generated at compile time.
//
// The towers are A, B and C; a disc may only move A -> B -> C -> A. All DISCS discs start on A and
// go to B. The number of discs is fixed when the program is compiled:
//
//     c++ -std=c++20 -O2 -DDISCS=4 cyclic.cpp -o cyclic && ./cyclic
//
// The program draws the towers at the start and after every move, as the article's print_tower()
// does: one tower a row, the top of the tower at the left, each place a dash and then the disc's
// number padded with dashes to as many digits as DISCS has, an empty place all dashes. With
// -DDISCS=4, the start and the first move:
//
//     -1-2-3-4|A
//     --------|B
//     --------|C
//
//     ---2-3-4|A
//     -------1|B
//     --------|C
//
// The article's own drawing is of 16 discs (fields 3 wide), though its listing has 12; with
// -DDISCS=16 the program draws it after move 216,521:
//
//     --------------------------------2--7-11-14-15-16|A
//     --------------------------------1--3--5--8-10-13|B
//     --------------------------------------4--6--9-12|C
//
// Changed from the article's listing: DISCS comes from the command line, so the towers are arrays
// of DISCS zeros filled in at start-up, rather than a literal array of 12; main calls
// transfer<DISCS, A, B>::disc(), where the listing's transfer<DISCS, A, B>()() calls an object that
// has no call operator and does not compile; no discs (DISCS=0) means no transfer at all; and rows
// end in '\n' rather than std::endl, which flushed the output three times a move.

#include <algorithm>
#include <array>
#include <iomanip>
#include <iostream>
#include <iterator>
#include <string>

#ifndef DISCS
#error "give the number of discs when compiling: -DDISCS=n"
#endif

static_assert(DISCS >= 0, "DISCS is a number of discs, 0 or more");

// region cyclic
constexpr int A = 0, B = 1, C = 2, TOWERS = 3;

constexpr auto next_tower(auto _t)
{
  return (_t + 1) % TOWERS;
}
// endregion cyclic

// Discs are 1 to DISCS, 1 the smallest; an empty place is a 0-disc. tower[t][0] is the top of
// tower t, and the bottom disc is at the end of the array.
std::array<std::array<int, DISCS>, TOWERS> tower{};

const auto disc_width = std::to_string(DISCS).length();
const std::string padding(disc_width + 1, '-');

void print_tower()
{
  for(auto t = 0; t < TOWERS; ++t)
  {
    for(auto d = 0; d < DISCS; ++d)
    {
      if(tower[t][d]) std::cout << "-" << std::setw(disc_width) << std::setfill('-') << tower[t][d];
      else std::cout << padding;
    }
    std::cout << "|" << static_cast<char>('A' + t);
    std::cout << '\n';
  }
  std::cout << '\n';
}

// region cyclic
auto rfind_zero(auto _first, auto _last)
{
  typedef std::reverse_iterator<decltype(_first)> riter;
  return std::find(riter(_last), riter(_first), 0).base();
}

// Left undefined: a case the specialisations below do not cover fails to compile.
template<int Discs, int Src, int Dst, bool direct = next_tower(Src) == Dst>
struct transfer;

// One disc to the adjacent tower: take the top of Src, put it on top of Dst.
template<int Src, int Dst>
struct transfer<1, Src, Dst, true>
{
  static inline void disc()
  {
    auto top_src = rfind_zero(tower[Src].begin(), tower[Src].end());
    auto top_dst = rfind_zero(tower[Dst].begin(), tower[Dst].end()) - 1;
    std::iter_swap(top_src, top_dst);
    print_tower();
  }
};

// One disc to the post-adjacent tower: two moves, by way of the tower between.
template<int Src, int Dst>
struct transfer<1, Src, Dst, false>
{
  static inline void disc()
  {
    transfer<1, Src, next_tower(Src)>::disc();
    transfer<1, next_tower(Src), Dst>::disc();
  }
};

// Discs to the adjacent tower: the Discs - 1 above out of the way to the tower after Dst, the
// largest across, the Discs - 1 on top of it.
template<int Discs, int Src, int Dst>
struct transfer<Discs, Src, Dst, true>
{
  static inline void disc()
  {
    transfer<Discs-1, Src, next_tower(Dst)>::disc();
    transfer<1, Src, Dst>::disc();
    transfer<Discs-1, next_tower(Dst), Dst>::disc();
  }
};

// Discs to the post-adjacent tower: room is made twice for the largest, which moves twice.
template<int Discs, int Src, int Dst>
struct transfer<Discs, Src, Dst, false>
{
  static inline void disc()
  {
    transfer<Discs-1, Src, Dst>::disc();
    transfer<1, Src, next_tower(Src)>::disc();
    transfer<Discs-1, Dst, Src>::disc();
    transfer<1, next_tower(Src), Dst>::disc();
    transfer<Discs-1, Src, Dst>::disc();
  }
};
// endregion cyclic

int main()
{
  std::ios::sync_with_stdio(false);
  for(auto d = 0; d < DISCS; ++d) tower[A][d] = d + 1;
  print_tower();
  if constexpr (DISCS > 0) transfer<DISCS, A, B>::disc();

  return 0;
}

! The Tower of Hanoi in modern Fortran: n discs from peg 0 to peg 2 by three methods, and the cyclic
! Tower of Hanoi: n discs from peg 0 to peg 1, each move one peg on (0 to 1, 1 to 2, 2 to 0).
!
!     gfortran -O2 -o hanoi hanoi.f90 && ./hanoi binary|recursive|iterative|cyclic N
!
! Each move is one line of fixed-width columns, written by a FORMAT statement: the disc, the peg it
! leaves and the peg it goes to. The lines go out a few thousand at a time as the moves are made:
! memory is O(n) whatever n is. The first moves for N = 3:
!
!        1   0   2
!        2   0   1
!        1   2   1
!
! A bad METHOD or N: a usage message on standard error and exit code 2.

module hanoi_methods
   use, intrinsic :: iso_fortran_env, only: int64
   implicit none
   private
   public :: max_discs, max_counted_discs, binary, recursive_hanoi, iterative, transfer_adjacent, &
             write_moves

   ! The most discs: 2**63 - 1 moves, the most a 64-bit count holds.
   integer, parameter :: max_discs = 63
   ! The most discs binary and iterative take: they count the moves in a signed 64-bit integer, and
   ! at n = 63 their loops' bounds and binary's (i .or. i - 1) + 1 reach 2**63, past the largest.
   integer, parameter :: max_counted_discs = 62

   ! A move's line: disc, source and target in columns 4 wide, then the end of the line.
   integer, parameter :: line_length = 3*4 + 1

   ! The moves made and not yet written: disc, source and target. gfortran writes each record to a
   ! pipe by itself, a system call a line, so the moves are written a few thousand at a time.
   integer :: pending(3, 4096)
   integer :: waiting = 0

contains

   ! One move: the disc on top of peg src goes on top of peg dst.
   subroutine move(disc, src, dst)
      integer, intent(in) :: disc, src, dst

      waiting = waiting + 1
      pending(:, waiting) = [disc, src, dst]
      if (waiting == size(pending, 2)) call write_moves()
   end subroutine move

   ! Writes the moves that wait, a line each, in one piece.
   subroutine write_moves()
      character(len=line_length*size(pending, 2)) :: text
      integer :: i

      write (text, 10) (pending(:, i), new_line('a'), i=1, waiting)
10    format (*(3i4, a))
      write (*, '(a)', advance='no') text(:line_length*waiting)
      waiting = 0
   end subroutine write_moves

   ! region binary
   ! After the Tower of Hanoi notes: move i (1 <= i < 2**n) takes disc 1 + (the trailing zero bits
   ! of i) from peg mod(i .and. i - 1, 3) to peg mod((i .or. i - 1) + 1, 3). The formula ends on
   ! peg 1 when n is even, so for even n pegs 1 and 2 swap names.
   subroutine binary(n)
      integer, intent(in) :: n
      integer :: peg(0:2)
      integer(int64) :: i

      if (mod(n, 2) == 0) then
         peg = [0, 2, 1]
      else
         peg = [0, 1, 2]
      end if
      do i = 1, shiftl(1_int64, n) - 1
         call move(1 + trailz(i), peg(mod(iand(i, i - 1), 3_int64)), &
                   peg(mod(ior(i, i - 1) + 1, 3_int64)))
      end do
   end subroutine binary
   ! endregion binary

   ! region recursive
   ! After the notes' r_toh(n, origin, target, spare) and Flach's hanoi/5 in Simply Logical: the
   ! n - 1 smaller discs out of the way to the spare peg, the largest to the target, the n - 1 back
   ! on top of it.
   recursive subroutine recursive_hanoi(n, source, target, spare)
      integer, intent(in) :: n, source, target, spare

      if (n == 0) return
      call recursive_hanoi(n - 1, source, spare, target)
      call move(n, source, target)
      call recursive_hanoi(n - 1, spare, target, source)
   end subroutine recursive_hanoi
   ! endregion recursive

   ! region iterative
   ! After COMP9021's iterative_towers: every other move is the smallest disc's, always the same
   ! way round (from p to p - 1 mod 3 for odd n, to p + 1 for even n); each move between is the
   ! only legal move between the two pegs the smallest disc is not on: from the peg with the
   ! smaller disc on top to the other, an empty peg counting as a floor larger than any disc.
   subroutine iterative(n)
      integer, intent(in) :: n
      integer :: stacks(0:n, 0:2)  ! each peg from the bottom up: its floor, then height(p) discs
      integer :: height(0:2), direction, small_disc_pos, new_small_disc_pos, from_pos, to_pos, d
      integer(int64) :: i

      direction = merge(2, 1, mod(n, 2) == 1)  ! 2 is -1 mod 3
      stacks(0, :) = n + 1
      stacks(1:, 0) = [(n + 1 - d, d = 1, n)]
      height = [n, 0, 0]
      small_disc_pos = 0
      do i = 0, shiftl(1_int64, n) - 2
         if (mod(i, 2_int64) == 0) then
            new_small_disc_pos = mod(small_disc_pos + direction, 3)
            call shift(small_disc_pos, new_small_disc_pos)
            small_disc_pos = new_small_disc_pos
         else
            from_pos = mod(small_disc_pos + 1, 3)
            to_pos = mod(small_disc_pos + 2, 3)
            if (top(to_pos) < top(from_pos)) then
               call shift(to_pos, from_pos)
            else
               call shift(from_pos, to_pos)
            end if
         end if
      end do

   contains

      integer function top(p)
         integer, intent(in) :: p
         top = stacks(height(p), p)
      end function top

      subroutine shift(src, dst)
         integer, intent(in) :: src, dst
         integer :: disc

         disc = top(src)
         height(src) = height(src) - 1
         height(dst) = height(dst) + 1
         stacks(height(dst), dst) = disc
         call move(disc, src, dst)
      end subroutine shift
   end subroutine iterative
   ! endregion iterative

   ! region cyclic
   ! After King-Yan Kwan's "Cyclic Tower of Hanoi - analysis and implementation": a disc may only
   ! move to the next tower, so discs go either to the adjacent tower or to the post-adjacent one
   ! (two on), and each of the two transfers is made of the other.

   integer function next_tower(t)
      integer, intent(in) :: t
      next_tower = mod(t + 1, 3)
   end function next_tower

   ! n discs from src to dst, the tower after it: the n - 1 above out of the way to the tower
   ! after dst, the largest across, the n - 1 on top of it.
   recursive subroutine transfer_adjacent(n, src, dst)
      integer, intent(in) :: n, src, dst

      if (n == 0) return
      call transfer_post_adjacent(n - 1, src, next_tower(dst))
      call move(n, src, dst)
      call transfer_post_adjacent(n - 1, next_tower(dst), dst)
   end subroutine transfer_adjacent

   ! n discs from src to dst, two towers on: room is made twice for the largest, which moves
   ! twice.
   recursive subroutine transfer_post_adjacent(n, src, dst)
      integer, intent(in) :: n, src, dst

      if (n == 0) return
      call transfer_post_adjacent(n - 1, src, dst)
      call move(n, src, next_tower(src))
      call transfer_adjacent(n - 1, dst, src)
      call move(n, next_tower(src), dst)
      call transfer_post_adjacent(n - 1, src, dst)
   end subroutine transfer_post_adjacent
   ! endregion cyclic

end module hanoi_methods

program hanoi
   use, intrinsic :: iso_fortran_env, only: error_unit
   use hanoi_methods
   implicit none
   character(len=:), allocatable :: method, discs
   integer :: n

   if (command_argument_count() /= 2) call usage('expected a method and a number of discs')
   method = argument(1)
   discs = argument(2)
   select case (method)
   case ('binary', 'recursive', 'iterative', 'cyclic')
   case default
      call usage('unknown method "'//method//'"')
   end select
   if (len(discs) == 0 .or. verify(discs, '0123456789') /= 0) &
      call usage('N must be a whole number of discs, 0 or more, not "'//discs//'"')
   do while (len(discs) > 1 .and. discs(1:1) == '0')  ! leading zeros go, but N = 0's own
      discs = discs(2:)
   end do
   if (len(discs) > 2) call usage('N = '//discs//' is more discs than a 64-bit count of moves allows')
   read (discs, '(i2)') n
   if (n > max_discs) call usage('N = '//discs//' is more discs than a 64-bit count of moves allows')
   if ((method == 'binary' .or. method == 'iterative') .and. n > max_counted_discs) &
      call usage('N = '//discs//' is more discs than '//method//' counts in a 64-bit integer')

   select case (method)
   case ('binary')
      call binary(n)
   case ('recursive')
      call recursive_hanoi(n, 0, 2, 1)
   case ('iterative')
      call iterative(n)
   case ('cyclic')
      call transfer_adjacent(n, 0, 1)
   end select
   call write_moves()

contains

   ! The command line's argument i, as long as it is.
   function argument(i) result(text)
      integer, intent(in) :: i
      character(len=:), allocatable :: text
      integer :: length

      call get_command_argument(i, length=length)
      allocate (character(len=length) :: text)
      if (length > 0) call get_command_argument(i, text)
   end function argument

   subroutine usage(problem)
      character(len=*), intent(in) :: problem

      write (error_unit, '(2a, i0, a, i0, a)') 'usage: hanoi binary|recursive|iterative|cyclic N   ', &
         '(N a whole number of discs, 0 to ', max_discs, '; to ', max_counted_discs, &
         ' for binary and iterative)'
      write (error_unit, '(2a)') 'hanoi: ', problem
      stop 2, quiet=.true.
   end subroutine usage
end program hanoi

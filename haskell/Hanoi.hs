-- | The Tower of Hanoi in Haskell: n discs from peg A to peg C by three classic methods, and
-- the cyclic Tower of Hanoi: n discs from peg A to peg B, every move one peg on (A to B, B to C,
-- C to A).
--
-- > ghc -O2 -o hanoi Hanoi.hs && ./hanoi binary|recursive|iterative|cyclic N
--
-- Each method is a lazy list of moves, which main prints one a line as 'show' writes a move
-- (@Move 1 A C@: disc 1 from peg A to peg C), as one lazy string. Each move is made as it is
-- printed, and let go once printed, so memory stays O(n) however long the list. The three
-- classic methods give the same 2^n - 1 moves. A wrong METHOD or N: a usage message on standard
-- error, exit code 2.
module Main (main) where

import Data.Bits (countTrailingZeros, (.&.), (.|.))
import Data.Char (isDigit)
import Data.List (unfoldr)
import System.Environment (getArgs)
import System.Exit (ExitCode (ExitFailure), exitWith)
import System.IO (BufferMode (BlockBuffering), hPutStrLn, hSetBuffering, stderr, stdout)

data Peg = A | B | C
  deriving (Show, Eq, Enum)

-- | A move: the disc (1 the smallest), the peg it leaves, the peg it goes to.
data Move = Move Int Peg Peg
  deriving (Show)

-- | 2^62 - 1 moves is as many as an Int counts (the binary and iterative methods do).
mostDiscs :: Int
mostDiscs = 62

-- region binary
-- | The Tower of Hanoi notes' bitwise formula: move i takes disc 1 + (trailing zero bits of i)
-- from peg (i .&. (i - 1)) mod 3 to peg ((i .|. (i - 1)) + 1) mod 3. For even n that formula
-- ends on peg B, so there B and C swap names.
binary :: Int -> [Move]
binary n =
  [ Move (1 + countTrailingZeros i) (peg (i .&. (i - 1))) (peg ((i .|. (i - 1)) + 1))
  | i <- [1 .. 2 ^ n - 1]
  ]
  where
    peg k = relabel (toEnum (k `mod` 3))
    relabel B | even n = C
    relabel C | even n = B
    relabel p = p
-- endregion binary

-- region recursive
-- | The notes' r_toh(n, origin, target, spare), as Simply Logical's hanoi/5 appends its moves:
-- the moves Before (n - 1 discs from the source to the spare peg, out of the way), disc n from the
-- source to the target, then the moves After (the n - 1 from the spare onto it).
recursive :: Int -> Peg -> Peg -> Peg -> [Move]
recursive 0 _ _ _ = []
recursive n source target spare = before ++ Move n source target : after
  where
    before = recursive (n - 1) source spare target
    after = recursive (n - 1) spare target source
-- endregion recursive

-- region iterative
-- | COMP9021's iterative_towers: the smallest disc makes every other move, always the same way
-- round the ring (one peg back, -1 mod 3, for odd n; one peg on for even n); each move between
-- is the only other legal one, between the two pegs the smallest disc is not on. Each step
-- carries the towers on, and where the smallest disc is.
iterative :: Int -> [Move]
iterative n = take (2 ^ n - 1) (unfoldr step (A, True, Towers [1 .. n] [] []))
  where
    way = if odd n then 2 else 1 -- 2 is -1 mod 3
    step (small, smallestsTurn, towers) =
      Just (Move disc from to, (small', not smallestsTurn, towers'))
      where
        (from, to)
          | smallestsTurn = (small, around way small)
          | otherwise = legal (around 1 small) (around 2 small)
        small' = if smallestsTurn then to else small
        (disc, towers') = shift from to towers
        legal a b = case (discsOn towers a, discsOn towers b) of
          ([], _) -> (b, a)
          (x : _, y : _) | y < x -> (b, a)
          _ -> (a, b)

-- | The discs on pegs A, B and C, each top first. The fields are strict, so each step leaves the
-- pegs worked out rather than a chain of moves still to work out.
data Towers = Towers ![Int] ![Int] ![Int]

discsOn :: Towers -> Peg -> [Int]
discsOn (Towers a _ _) A = a
discsOn (Towers _ b _) B = b
discsOn (Towers _ _ c) C = c

-- | The top disc of one peg taken to the top of another.
shift :: Peg -> Peg -> Towers -> (Int, Towers)
shift from to towers = (disc, Towers (after A) (after B) (after C))
  where
    disc : rest = discsOn towers from
    after p
      | p == from = rest
      | p == to = disc : discsOn towers to
      | otherwise = discsOn towers p

-- | The peg k pegs on round the ring A, B, C.
around :: Int -> Peg -> Peg
around k p = toEnum ((fromEnum p + k) `mod` 3)
-- endregion iterative

-- region cyclic
-- | The cyclic Tower of Hanoi article's two transfers, in which a disc only ever moves one peg
-- on. To the adjacent tower: the n - 1 smaller discs to the post-adjacent one, out of the way,
-- disc n one peg on, then the n - 1 on to their post-adjacent tower, on top of disc n.
toAdjacent :: Int -> Peg -> [Move]
toAdjacent 0 _ = []
toAdjacent n from =
  toPostAdjacent (n - 1) from ++ Move n from to : toPostAdjacent (n - 1) (next to)
  where
    to = next from

-- | To the post-adjacent tower, disc n goes one peg on twice: the n - 1 out of its way to the
-- post-adjacent tower, disc n one on, the n - 1 back where they began (one on), disc n one on
-- again, and the n - 1 onto it, two pegs on.
toPostAdjacent :: Int -> Peg -> [Move]
toPostAdjacent 0 _ = []
toPostAdjacent n from =
  toPostAdjacent (n - 1) from
    ++ Move n from between
    : toAdjacent (n - 1) to
    ++ Move n between to
    : toPostAdjacent (n - 1) from
  where
    between = next from
    to = next between

next :: Peg -> Peg
next C = A
next p = succ p
-- endregion cyclic

-- | The moves of a method, by its name.
method :: String -> Maybe (Int -> [Move])
method "binary" = Just binary
method "recursive" = Just (\n -> recursive n A C B)
method "iterative" = Just iterative
method "cyclic" = Just (`toAdjacent` A) -- A to B, the adjacent tower
method _ = Nothing

-- | The number of discs N says, or what is wrong with it.
discCount :: String -> Either String Int
discCount count
  | null count || not (all isDigit count) =
      Left ("N must be a whole number of discs, 0 or more, not " ++ show count)
  | read count > toInteger mostDiscs =
      Left ("N = " ++ count ++ " is more discs than an Int counts the moves of")
  | otherwise = Right (read count)

main :: IO ()
main = do
  args <- getArgs
  case args of
    [name, count] -> case (method name, discCount count) of
      (Nothing, _) -> usage ("unknown method " ++ show name)
      (_, Left problem) -> usage problem
      (Just moves, Right n) -> do
        hSetBuffering stdout (BlockBuffering Nothing)
        putStr (unlines (map show (moves n)))
    _ -> usage ("expected METHOD and N, got " ++ show (length args) ++ " argument(s)")

usage :: String -> IO ()
usage problem = do
  hPutStrLn stderr $
    "usage: hanoi binary|recursive|iterative|cyclic N   (N from 0 to " ++ show mostDiscs ++ ")"
  hPutStrLn stderr ("hanoi: " ++ problem)
  exitWith (ExitFailure 2)

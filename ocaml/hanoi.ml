(* The Tower of Hanoi in OCaml: n discs from peg 0 to peg 2 by three classic methods, and the
   cyclic Tower of Hanoi: n discs from peg 0 to peg 1, every move one peg on (0 to 1, 1 to 2,
   2 to 0).

     ocamlopt -o hanoi hanoi.ml && ./hanoi binary|recursive|iterative|cyclic N

   Each move is printed as it is made, one a line, "disc 1: 0 -> 2", by Printf into stdout's
   buffer: memory is O(n) whatever n is. The three classic methods print the same 2^n - 1 moves.
   A wrong METHOD or N: a usage message on standard error, exit code 2, no moves. *)

(* 2^61 - 1 moves is as many as OCaml's 63-bit int counts (the binary and iterative methods do). *)
let most_discs = 61

let move disc src dst = Printf.printf "disc %d: %d -> %d\n" disc src dst

(* region binary *)
(* The Tower of Hanoi notes' bitwise formula: move i takes disc 1 + (trailing zero bits of i)
   from peg (i land (i - 1)) mod 3 to peg ((i lor (i - 1)) + 1) mod 3. For even n that formula
   ends on peg 1, so there pegs 1 and 2 swap names. *)
let rec trailing_zeros i = if i land 1 = 1 then 0 else 1 + trailing_zeros (i lsr 1)

let binary n =
  let peg = if n mod 2 = 0 then [| 0; 2; 1 |] else [| 0; 1; 2 |] in
  for i = 1 to (1 lsl n) - 1 do
    move (1 + trailing_zeros i) peg.((i land (i - 1)) mod 3) peg.(((i lor (i - 1)) + 1) mod 3)
  done
(* endregion binary *)

(* region recursive *)
(* The notes' r_toh (n, origin, target, spare) and Simply Logical's hanoi/5: the n - 1 smaller
   discs out of the way to the spare peg, disc n from the source to the target, then the n - 1
   from the spare onto it. *)
let rec recursive n source target spare =
  if n > 0 then begin
    recursive (n - 1) source spare target;
    move n source target;
    recursive (n - 1) spare target source
  end
(* endregion recursive *)

(* region iterative *)
(* COMP9021's iterative_towers: the smallest disc makes every other move, always the same way
   round the ring (one peg back, -1 mod 3, for odd n; one peg on for even n); each move between
   is the only other legal one, between the two pegs the smallest disc is not on. Each peg is a
   list of its discs, the top first. *)
let iterative n =
  let towers = [| List.init n (fun i -> i + 1); []; [] |] in
  let shift src dst =
    match towers.(src) with
    | disc :: rest ->
        towers.(src) <- rest;
        towers.(dst) <- disc :: towers.(dst);
        move disc src dst
    | [] -> invalid_arg "shift: no disc on that peg"
  in
  let direction = if n mod 2 = 1 then 2 else 1 (* 2 is -1 mod 3 *) in
  let small = ref 0 in
  for i = 0 to (1 lsl n) - 2 do
    if i mod 2 = 0 then begin
      let next = (!small + direction) mod 3 in
      shift !small next;
      small := next
    end
    else begin
      let a = (!small + 1) mod 3 and b = (!small + 2) mod 3 in
      match (towers.(a), towers.(b)) with
      | [], _ -> shift b a
      | x :: _, y :: _ when y < x -> shift b a
      | _ -> shift a b
    end
  done
(* endregion iterative *)

(* region cyclic *)
(* The cyclic Tower of Hanoi article's two transfers, in which a disc only ever moves one peg
   on. To the adjacent tower: the n - 1 smaller discs to the post-adjacent one, out of the way,
   disc n one peg on, then the n - 1 on to their post-adjacent tower, on top of disc n.
   To the post-adjacent tower, disc n goes one peg on twice: the n - 1 out of its way to the
   post-adjacent tower, disc n one on, the n - 1 back where they began (one on), disc n one on
   again, and the n - 1 onto it, two pegs on. *)
let next peg = (peg + 1) mod 3

let rec to_adjacent n src =
  if n > 0 then begin
    let dst = next src in
    to_post_adjacent (n - 1) src;
    move n src dst;
    to_post_adjacent (n - 1) (next dst)
  end

and to_post_adjacent n src =
  if n > 0 then begin
    let between = next src in
    let dst = next between in
    to_post_adjacent (n - 1) src;
    move n src between;
    to_adjacent (n - 1) dst;
    move n between dst;
    to_post_adjacent (n - 1) src
  end
(* endregion cyclic *)

let usage problem =
  Printf.eprintf "usage: hanoi binary|recursive|iterative|cyclic N   (N from 0 to %d)\n" most_discs;
  Printf.eprintf "hanoi: %s\n" problem;
  exit 2

(* The number of discs N says, or the usage message. *)
let disc_count count =
  let is_digit c = '0' <= c && c <= '9' in
  if count = "" || not (String.for_all is_digit count) then
    usage (Printf.sprintf "N must be a whole number of discs, 0 or more, not %S" count);
  match int_of_string_opt count with
  | Some n when n <= most_discs -> n
  | _ -> usage (Printf.sprintf "N = %s is more discs than an int counts the moves of" count)

let () =
  match Sys.argv with
  | [| _; meth; count |] ->
      let solve =
        match meth with
        | "binary" -> binary
        | "recursive" -> fun n -> recursive n 0 2 1
        | "iterative" -> iterative
        | "cyclic" -> fun n -> to_adjacent n 0 (* peg 0 to peg 1, the adjacent tower *)
        | _ -> usage (Printf.sprintf "unknown method %S" meth)
      in
      solve (disc_count count)
  | _ ->
      usage (Printf.sprintf "expected METHOD and N, got %d argument(s)" (Array.length Sys.argv - 1))

;;; hanoi.scm -- the Tower of Hanoi in Scheme (GNU Guile 3.0)
;;;
;;;     guile hanoi.scm binary|recursive|iterative|cyclic N
;;;
;;; prints the moves of N discs, one a line, as it makes them: each move is the list
;;; (disc from to), as `write' shows it:
;;;
;;;     (1 0 2)
;;;
;;; binary, recursive and iterative take the discs from peg 0 to peg 2. cyclic solves the cyclic
;;; Tower of Hanoi: the discs go from peg 0 to peg 1, each move one peg on (0 -> 1 -> 2 -> 0).
;;; No list of moves is built, so memory stays O(N) however many moves there are.

(use-modules (ice-9 match))

(define (say disc from to)
  "Print one move: the list (DISC FROM TO)."
  (write (list disc from to))
  (newline))

;;; region binary
;;; The Tower of Hanoi notes' bitwise formula: move i goes from peg (i & (i - 1)) mod 3 to peg
;;; ((i | (i - 1)) + 1) mod 3 and moves disc 1 + (the trailing zero bits of i). For even n that
;;; formula ends on peg 1, so pegs 1 and 2 swap names.
(define (binary n)
  (let ((peg (if (even? n) #(0 2 1) #(0 1 2)))
        (moves (- (ash 1 n) 1)))
    (let loop ((i 1))
      (when (<= i moves)
        ;; i's lowest set bit is 2^(trailing zeros): its length is the disc.
        (say (integer-length (logand i (- i)))
             (vector-ref peg (modulo (logand i (- i 1)) 3))
             (vector-ref peg (modulo (+ (logior i (- i 1)) 1) 3)))
        (loop (+ i 1))))))
;;; endregion binary

;;; region recursive
;;; The classic recursion, as Simply Logical's hanoi/5 and the Tower of Hanoi notes' r_toh make
;;; it: n - 1 discs out of the way onto the spare peg, disc n to the target, the n - 1 back on top.
(define (recursive n source target spare)
  (when (> n 0)
    (recursive (- n 1) source spare target)
    (say n source target)
    (recursive (- n 1) spare target source)))
;;; endregion recursive

;;; region iterative
;;; COMP9021's iterative_towers(): every other move is the smallest disc's, always the same way
;;; round (-1 mod 3 for odd n, +1 for even n); each move between is the only legal one between
;;; the two pegs the smallest disc is not on. The pegs are lists, the top disc first.
(define (iterative n)
  (define stacks (vector (iota n 1) '() '()))
  (define (top peg) (match (vector-ref stacks peg) ((disc . _) disc) (() #f)))
  (define (shift! from to)
    (let ((disc (top from)))
      (vector-set! stacks from (cdr (vector-ref stacks from)))
      (vector-set! stacks to (cons disc (vector-ref stacks to)))
      (say disc from to)))
  (let ((direction (if (odd? n) -1 1))
        (moves (- (ash 1 n) 1)))
    (let loop ((i 0) (small 0))
      (when (< i moves)
        (if (even? i)
            (let ((to (modulo (+ small direction) 3)))
              (shift! small to)
              (loop (+ i 1) to))
            (let* ((a (modulo (+ small 1) 3))
                   (b (modulo (+ small 2) 3))
                   (top-a (top a))
                   (top-b (top b)))
              ;; From a to b, unless a is empty or b's top disc is the smaller.
              (if (or (not top-a) (and top-b (< top-b top-a)))
                  (shift! b a)
                  (shift! a b))
              (loop (+ i 1) small)))))))
;;; endregion iterative

;;; region cyclic
;;; The cyclic Tower of Hanoi article's two mutually recursive transfers, each taking the
;;; `discs' smallest discs from tower `src' to tower `dst', every move one tower on.
(define (next-tower tower)
  "The tower one on, as the article's next_tower(): 0 -> 1 -> 2 -> 0."
  (modulo (+ tower 1) 3))

;; To the adjacent tower (dst is one on): the discs - 1 smaller discs go two on, out of the way,
;; the largest one on, and the discs - 1 two on again, onto it.
(define (transfer-to-adjacent discs src dst)
  (when (> discs 0)
    (let ((aside (next-tower dst)))
      (transfer-to-post-adjacent (- discs 1) src aside)
      (say discs src dst)
      (transfer-to-post-adjacent (- discs 1) aside dst))))

;; To the post-adjacent tower (dst is two on): the largest disc goes one on twice, and the
;; discs - 1 smaller discs make room for it three times: two on, one on (back to src), two on.
(define (transfer-to-post-adjacent discs src dst)
  (when (> discs 0)
    (let ((via (next-tower src)))
      (transfer-to-post-adjacent (- discs 1) src dst)
      (say discs src via)
      (transfer-to-adjacent (- discs 1) dst src)
      (say discs via dst)
      (transfer-to-post-adjacent (- discs 1) src dst))))
;;; endregion cyclic

(define methods
  `(("binary" . ,binary)
    ("recursive" . ,(lambda (n) (recursive n 0 2 1)))
    ("iterative" . ,iterative)
    ("cyclic" . ,(lambda (n) (transfer-to-adjacent n 0 1)))))

(define (parse-discs text)
  "TEXT as a whole number of discs, 0 or more; #f if it is not one."
  (let ((n (and (string-every char-numeric? text) (string->number text 10))))
    (and (exact-integer? n) n)))

(define (usage why)
  (format (current-error-port) "hanoi.scm: ~a~%usage: guile hanoi.scm ~a N~%"
          why (string-join (map car methods) "|"))
  (exit 2))

(match (cdr (command-line))
  ((name count)
   (let ((method (assoc-ref methods name))
         (n (parse-discs count)))
     (cond ((not method) (usage (format #f "unknown method ~s" name)))
           ((not n) (usage (format #f "N must be a whole number of discs, 0 or more, not ~s" count)))
           (else (method n)))))
  (args (usage (format #f "expected a METHOD and N, got ~a argument(s)" (length args)))))

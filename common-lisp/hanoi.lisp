;;;; hanoi.lisp -- the Tower of Hanoi in Common Lisp (SBCL)
;;;;
;;;;     sbcl --script hanoi.lisp binary|recursive|iterative|cyclic N
;;;;
;;;; prints the moves of N discs, one a line, as Lisp forms, as it makes them:
;;;;
;;;;     (MOVE 1 :FROM 0 :TO 2)
;;;;
;;;; binary, recursive and iterative take the discs from peg 0 to peg 2. cyclic solves the cyclic
;;;; Tower of Hanoi: the discs go from peg 0 to peg 1, each move one peg on (0 -> 1 -> 2 -> 0).
;;;; No list of moves is built, so memory stays O(N) however many moves there are.
;;;;
;;;; The program is standard Common Lisp but for its last page, where SBCL gives it its command
;;;; line, its exit code and a fully buffered standard output.

(defun say (disc from to)
  "Print one move as the form (move DISC :from FROM :to TO), the way prin1 writes it. (The format
string writes those very characters at twice prin1's speed, which counts at a million moves.)"
  (format t "(MOVE ~D :FROM ~D :TO ~D)~%" disc from to))

;;; region binary
;;; The Tower of Hanoi notes' bitwise formula.
(defun binary (n)
  "Move I goes from peg (I & (I - 1)) mod 3 to peg ((I | (I - 1)) + 1) mod 3 and moves disc
1 + (the trailing zero bits of I). For even N that formula ends on peg 1, so pegs 1 and 2 swap
names."
  (let ((peg (if (evenp n) #(0 2 1) #(0 1 2))))
    (loop for i from 1 below (ash 1 n)
          ;; I's lowest set bit is 2^(trailing zeros): its length is the disc.
          do (say (integer-length (logand i (- i)))
                  (svref peg (mod (logand i (1- i)) 3))
                  (svref peg (mod (1+ (logior i (1- i))) 3))))))
;;; endregion binary

;;; region recursive
;;; The classic recursion, as Simply Logical's hanoi/5 and the Tower of Hanoi notes' r_toh make it.
(defun recursive (n source target spare)
  "Move N - 1 discs out of the way onto SPARE, disc N to TARGET, and the N - 1 back on top."
  (when (plusp n)
    (recursive (1- n) source spare target)
    (say n source target)
    (recursive (1- n) spare target source)))
;;; endregion recursive

;;; region iterative
;;; COMP9021's iterative_towers(): the three pegs are lists, the top disc first.
(defun iterative (n)
  "Every other move is the smallest disc's, always the same way round (-1 mod 3 for odd N, +1
for even N); each move between is the only legal one between the two pegs it is not on."
  (let ((stacks (vector (loop for disc from 1 to n collect disc) '() '()))
        (direction (if (oddp n) -1 1))
        (small 0))
    (flet ((shift (from to)
             (let ((disc (pop (svref stacks from))))
               (push disc (svref stacks to))
               (say disc from to))))
      (dotimes (i (1- (ash 1 n)))
        (if (evenp i)
            (let ((to (mod (+ small direction) 3)))
              (shift small to)
              (setf small to))
            (let* ((from (mod (+ small 1) 3))
                   (to (mod (+ small 2) 3))
                   (from-top (first (svref stacks from)))
                   (to-top (first (svref stacks to))))
              ;; The other way round if FROM is empty, or TO's top disc is the smaller.
              (when (or (null from-top) (and to-top (< to-top from-top)))
                (rotatef from to))
              (shift from to)))))))
;;; endregion iterative

;;; region cyclic
;;; The cyclic Tower of Hanoi article's two mutually recursive transfers, each taking the DISCS
;;; smallest discs from tower SRC to tower DST, every move one tower on.
(defun next-tower (tower)
  "The tower one on from TOWER, as the article's next_tower(): 0 -> 1 -> 2 -> 0."
  (mod (1+ tower) 3))

(defun transfer-to-adjacent (discs src dst)
  "To the adjacent tower (DST is one on from SRC): the DISCS - 1 smaller discs go two on, out of
the way, the largest one on, and the DISCS - 1 two on again, onto it."
  (when (plusp discs)
    (let ((aside (next-tower dst)))
      (transfer-to-post-adjacent (1- discs) src aside)
      (say discs src dst)
      (transfer-to-post-adjacent (1- discs) aside dst))))

(defun transfer-to-post-adjacent (discs src dst)
  "To the post-adjacent tower (DST is two on from SRC): the largest disc goes one on twice, and
the DISCS - 1 smaller discs make room for it three times: two on, one on (back to SRC), two on."
  (when (plusp discs)
    (let ((via (next-tower src)))
      (transfer-to-post-adjacent (1- discs) src dst)
      (say discs src via)
      (transfer-to-adjacent (1- discs) dst src)
      (say discs via dst)
      (transfer-to-post-adjacent (1- discs) src dst))))
;;; endregion cyclic

(defparameter *methods*
  (list (cons "binary" #'binary)
        (cons "recursive" (lambda (n) (recursive n 0 2 1)))
        (cons "iterative" #'iterative)
        (cons "cyclic" (lambda (n) (transfer-to-adjacent n 0 1))))
  "Each method's name on the command line, and a function of N that prints its moves.")

(defun parse-discs (text)
  "TEXT as a whole number of discs, 0 or more; NIL if it is not one. Only the ASCII digits count:
digit-char-p may take other scripts' digits too, and SBCL's does."
  (and (plusp (length text))
       (every (lambda (char) (find char "0123456789")) text)
       (parse-integer text)))

;;; SBCL's part: the command line, the exit code and a standard output that is written a buffer
;;; at a time (SBCL's own flushes every line).

(defun usage (why)
  (format *error-output* "hanoi.lisp: ~A~%usage: sbcl --script hanoi.lisp ~{~A~^|~} N~%"
          why (mapcar #'car *methods*))
  (sb-ext:exit :code 2))

(defun main (args)
  (unless (= (length args) 2)
    (usage (format nil "expected a METHOD and N, got ~D argument~:P" (length args))))
  (destructuring-bind (name count) args
    (let ((method (cdr (assoc name *methods* :test #'string=)))
          (n (parse-discs count)))
      (cond ((null method) (usage (format nil "unknown method ~S" name)))
            ((null n) (usage (format nil "N must be a whole number of discs, 0 or more, not ~S"
                                     count)))
            (t (let ((*standard-output* (sb-sys:make-fd-stream 1 :output t :buffering :full)))
                 ;; A reader that stops reading (| head) ends the program quietly, as --script
                 ;; does for its own standard output.
                 (handler-case (progn (funcall method n) (finish-output))
                   (stream-error () (sb-ext:exit :abort t)))))))))

(main (rest sb-ext:*posix-argv*))

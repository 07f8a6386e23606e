*> The Tower of Hanoi in GnuCOBOL: N discs from peg A to peg C by three methods, and the cyclic
*> Tower of Hanoi: N discs from peg A to peg B, each move one peg on (A to B, B to C, C to A).
*>
*>     cobc -x -free hanoi.cob && ./hanoi binary|recursive|iterative|cyclic N
*>
*> Each move is one record of the line sequential file MOVES, which is standard output
*> (ASSIGN TO DISPLAY): MOVE DISC 01 FROM PEG A TO PEG C. The file is written through a buffer,
*> so the moves come out as they are made without a write to the system for each line.
*> The recursive methods are RECURSIVE programs, after HANOI in this file, each call with its own
*> LOCAL-STORAGE, so memory stays O(N).

IDENTIFICATION DIVISION.
PROGRAM-ID. HANOI.

ENVIRONMENT DIVISION.
INPUT-OUTPUT SECTION.
FILE-CONTROL.
    SELECT MOVES ASSIGN TO DISPLAY
        ORGANIZATION IS LINE SEQUENTIAL.

DATA DIVISION.
FILE SECTION.
FD  MOVES IS EXTERNAL.
01  MOVE-RECORD                 PIC X(32).

WORKING-STORAGE SECTION.
*> The command line.
01  ARG-COUNT                   PIC 9(4) COMP-5.
01  ARG-COUNT-SHOWN             PIC Z(3)9.
01  METHOD-ARG                  PIC X(40).
01  N-ARG                       PIC X(40).
*> N again, set at the right: its last character is a space only if N ends in one (or is empty).
01  N-ARG-END                   PIC X(40) JUSTIFIED RIGHT.
01  N-LENGTH                    PIC 9(4) COMP-5.
01  MAX-DISCS                   PIC 99 VALUE 63.

*> What every method is given: the number of discs and the pegs.
01  DISCS                       PIC 99 COMP-5.
01  SOURCE-PEG                  PIC 9 COMP-5 VALUE 0.
01  SPARE-PEG                   PIC 9 COMP-5 VALUE 1.
01  TARGET-PEG                  PIC 9 COMP-5 VALUE 2.

*> region binary iterative
*> A move, as the binary and iterative methods make it: the disc and the pegs it leaves and goes to.
01  FROM-PEG                    PIC 9 COMP-5.
01  TO-PEG                      PIC 9 COMP-5.
01  DISC                        PIC 99 COMP-5.
*> endregion binary iterative

*> region binary
*> The binary method: the move's number, and the bits CBL_AND and CBL_OR work on.
01  MOVE-NUMBER                 USAGE BINARY-DOUBLE UNSIGNED.
01  LAST-MOVE                   USAGE BINARY-DOUBLE UNSIGNED.
01  PREVIOUS                    USAGE BINARY-DOUBLE UNSIGNED.
01  BITS-AND                    USAGE BINARY-DOUBLE UNSIGNED.
01  BITS-OR                     USAGE BINARY-DOUBLE UNSIGNED.
01  LOWEST-BIT                  USAGE BINARY-DOUBLE UNSIGNED.
01  POWER                       USAGE BINARY-DOUBLE UNSIGNED.
01  RELABEL                     PIC X(3).
01  FILLER REDEFINES RELABEL.
    05  RELABELLED              PIC 9 OCCURS 3.
*> endregion binary

*> region iterative
*> The iterative method: the three towers, each bottom disc first, and the smallest disc's way.
01  TOWERS.
    05  TOWER OCCURS 3.
        10  HEIGHT              PIC 99 COMP-5.
        10  DISC-AT             PIC 99 COMP-5 OCCURS 64.
01  FROM-TOWER                  PIC 9 COMP-5.
01  TO-TOWER                    PIC 9 COMP-5.
01  PEG-A                       PIC 9 COMP-5.
01  PEG-B                       PIC 9 COMP-5.
01  SMALL-PEG                   PIC 9 COMP-5.
01  WAY                         PIC 9 COMP-5.
01  MOVES-LEFT                  USAGE BINARY-DOUBLE UNSIGNED.
*> endregion iterative

PROCEDURE DIVISION.
MAIN.
    PERFORM READ-ARGUMENTS
    OPEN OUTPUT MOVES
    EVALUATE METHOD-ARG
        WHEN "binary"
            PERFORM BINARY-METHOD
        WHEN "recursive"
            CALL "RECURSIVE-HANOI" USING BY CONTENT DISCS SOURCE-PEG TARGET-PEG SPARE-PEG
        WHEN "iterative"
            PERFORM ITERATIVE-METHOD
        WHEN "cyclic"
            CALL "ADJACENT" USING BY CONTENT DISCS SOURCE-PEG SPARE-PEG
    END-EVALUATE
    CLOSE MOVES
    STOP RUN.

*> METHOD N: N a whole number of discs, 0 to MAX-DISCS (2^N - 1 must fit in 64 bits).
READ-ARGUMENTS.
    ACCEPT ARG-COUNT FROM ARGUMENT-NUMBER
    IF ARG-COUNT NOT = 2
        MOVE ARG-COUNT TO ARG-COUNT-SHOWN
        DISPLAY "hanoi: expected METHOD N, got " FUNCTION TRIM(ARG-COUNT-SHOWN) " argument(s)"
            UPON SYSERR
        PERFORM USAGE-EXIT
    END-IF
    ACCEPT METHOD-ARG FROM ARGUMENT-VALUE
    ACCEPT N-ARG FROM ARGUMENT-VALUE
    DISPLAY 2 UPON ARGUMENT-NUMBER
    ACCEPT N-ARG-END FROM ARGUMENT-VALUE
    IF METHOD-ARG NOT = "binary" AND "recursive" AND "iterative" AND "cyclic"
        DISPLAY "hanoi: unknown method '" FUNCTION TRIM(METHOD-ARG) "'" UPON SYSERR
        PERFORM USAGE-EXIT
    END-IF
    MOVE FUNCTION LENGTH(FUNCTION TRIM(N-ARG TRAILING)) TO N-LENGTH
    IF N-ARG = SPACES OR N-ARG(40:1) NOT = SPACE OR N-ARG-END(40:1) = SPACE
            OR N-ARG(1:N-LENGTH) IS NOT NUMERIC
        DISPLAY "hanoi: N must be a whole number of discs, 0 or more, not '"
            FUNCTION TRIM(N-ARG) "'" UPON SYSERR
        PERFORM USAGE-EXIT
    END-IF
    IF FUNCTION NUMVAL(N-ARG(1:N-LENGTH)) > MAX-DISCS
        DISPLAY "hanoi: N must be at most " MAX-DISCS ", not '" FUNCTION TRIM(N-ARG) "'"
            UPON SYSERR
        PERFORM USAGE-EXIT
    END-IF
    COMPUTE DISCS = FUNCTION NUMVAL(N-ARG(1:N-LENGTH)).

USAGE-EXIT.
    DISPLAY "usage: hanoi binary|recursive|iterative|cyclic N" UPON SYSERR
    MOVE 2 TO RETURN-CODE
    STOP RUN.

*> region binary
*> The Tower of Hanoi notes' bitwise formula: move I (1 <= I < 2^N) takes disc 1 + (trailing zero
*> bits of I) from peg (I AND I - 1) mod 3 to peg ((I OR I - 1) + 1) mod 3, the AND and the OR
*> done by GnuCOBOL's CBL_AND and CBL_OR on the 8 bytes of each number. For even N the formula
*> ends on peg 1, so pegs 1 and 2 swap names.
BINARY-METHOD.
    IF FUNCTION MOD(DISCS, 2) = 0
        MOVE "021" TO RELABEL
    ELSE
        MOVE "012" TO RELABEL
    END-IF
    COMPUTE LAST-MOVE = 2 ** DISCS - 1
    PERFORM VARYING MOVE-NUMBER FROM 1 BY 1 UNTIL MOVE-NUMBER > LAST-MOVE
        SUBTRACT 1 FROM MOVE-NUMBER GIVING PREVIOUS
        MOVE MOVE-NUMBER TO BITS-AND BITS-OR
        CALL "CBL_AND" USING PREVIOUS BITS-AND BY VALUE 8
        CALL "CBL_OR" USING PREVIOUS BITS-OR BY VALUE 8
        PERFORM COUNT-TRAILING-ZEROS
        MOVE RELABELLED(FUNCTION MOD(BITS-AND, 3) + 1) TO FROM-PEG
        MOVE RELABELLED(FUNCTION MOD(BITS-OR + 1, 3) + 1) TO TO-PEG
        CALL "WRITE-MOVE" USING DISC FROM-PEG TO-PEG
    END-PERFORM.

*> DISC = 1 + the trailing zero bits of MOVE-NUMBER: MOVE-NUMBER - (MOVE-NUMBER AND PREVIOUS) is
*> its lowest 1 bit, 2 ** (DISC - 1).
COUNT-TRAILING-ZEROS.
    SUBTRACT BITS-AND FROM MOVE-NUMBER GIVING LOWEST-BIT
    MOVE 1 TO DISC POWER
    PERFORM UNTIL POWER = LOWEST-BIT
        ADD POWER TO POWER
        ADD 1 TO DISC
    END-PERFORM.
*> endregion binary

*> region iterative
*> COMP9021's iterative towers: every other move is the smallest disc's, always the same way round
*> (-1 mod 3 for odd N, +1 for even N); each move between is the only legal one between the two
*> pegs the smallest disc is not on. Tower P + 1 of the table is peg P.
ITERATIVE-METHOD.
    MOVE DISCS TO HEIGHT(1)
    PERFORM VARYING DISC FROM 1 BY 1 UNTIL DISC > DISCS
        COMPUTE DISC-AT(1, DISC) = DISCS - DISC + 1
    END-PERFORM
    MOVE 0 TO HEIGHT(2) HEIGHT(3)
    IF FUNCTION MOD(DISCS, 2) = 1
        MOVE 2 TO WAY
    ELSE
        MOVE 1 TO WAY
    END-IF
    MOVE 0 TO SMALL-PEG
    COMPUTE MOVES-LEFT = 2 ** DISCS - 1
    PERFORM UNTIL MOVES-LEFT = 0
        MOVE SMALL-PEG TO FROM-PEG
        COMPUTE TO-PEG = FUNCTION MOD(SMALL-PEG + WAY, 3)
        PERFORM SHIFT-DISC
        MOVE TO-PEG TO SMALL-PEG
        IF MOVES-LEFT > 0
            PERFORM OTHER-MOVE
        END-IF
    END-PERFORM.

*> The legal move between the two pegs the smallest disc is not on, PEG-A and PEG-B: from the
*> one whose top disc is the smaller.
OTHER-MOVE.
    COMPUTE PEG-A = FUNCTION MOD(SMALL-PEG + 1, 3)
    COMPUTE PEG-B = FUNCTION MOD(SMALL-PEG + 2, 3)
    IF HEIGHT(PEG-A + 1) = 0
        OR (HEIGHT(PEG-B + 1) > 0
            AND DISC-AT(PEG-B + 1, HEIGHT(PEG-B + 1)) < DISC-AT(PEG-A + 1, HEIGHT(PEG-A + 1)))
        MOVE PEG-B TO FROM-PEG
        MOVE PEG-A TO TO-PEG
    ELSE
        MOVE PEG-A TO FROM-PEG
        MOVE PEG-B TO TO-PEG
    END-IF
    PERFORM SHIFT-DISC.

*> The top disc of FROM-PEG onto TO-PEG, written out.
SHIFT-DISC.
    COMPUTE FROM-TOWER = FROM-PEG + 1
    COMPUTE TO-TOWER = TO-PEG + 1
    MOVE DISC-AT(FROM-TOWER, HEIGHT(FROM-TOWER)) TO DISC
    SUBTRACT 1 FROM HEIGHT(FROM-TOWER)
    ADD 1 TO HEIGHT(TO-TOWER)
    MOVE DISC TO DISC-AT(TO-TOWER, HEIGHT(TO-TOWER))
    SUBTRACT 1 FROM MOVES-LEFT
    CALL "WRITE-MOVE" USING DISC FROM-PEG TO-PEG.
*> endregion iterative

END PROGRAM HANOI.

*> One move, written to MOVES, the file HANOI opens: the pegs 0, 1 and 2 are named A, B and C.
IDENTIFICATION DIVISION.
PROGRAM-ID. WRITE-MOVE.
ENVIRONMENT DIVISION.
INPUT-OUTPUT SECTION.
FILE-CONTROL.
    SELECT MOVES ASSIGN TO DISPLAY
        ORGANIZATION IS LINE SEQUENTIAL.
DATA DIVISION.
FILE SECTION.
FD  MOVES IS EXTERNAL.
01  MOVE-RECORD                 PIC X(32).
WORKING-STORAGE SECTION.
01  THE-MOVE.
    05  FILLER                  PIC X(10) VALUE "MOVE DISC ".
    05  MOVE-DISC               PIC 99.
    05  FILLER                  PIC X(10) VALUE " FROM PEG ".
    05  MOVE-FROM               PIC X.
    05  FILLER                  PIC X(8)  VALUE " TO PEG ".
    05  MOVE-TO                 PIC X.
01  PEG-NAMES                   VALUE "ABC".
    05  PEG-NAME                PIC X OCCURS 3.
LINKAGE SECTION.
01  DISC                        PIC 99 COMP-5.
01  FROM-PEG                    PIC 9 COMP-5.
01  TO-PEG                      PIC 9 COMP-5.
PROCEDURE DIVISION USING DISC FROM-PEG TO-PEG.
    MOVE DISC TO MOVE-DISC
    MOVE PEG-NAME(FROM-PEG + 1) TO MOVE-FROM
    MOVE PEG-NAME(TO-PEG + 1) TO MOVE-TO
    WRITE MOVE-RECORD FROM THE-MOVE
    GOBACK.
END PROGRAM WRITE-MOVE.

*> region recursive
*> The classic recursion, as Simply Logical's hanoi/5 and the notes' r_toh have it: N - 1 discs
*> out of the way onto SPARE-PEG, the largest from SOURCE-PEG to TARGET-PEG, the N - 1 back on top.
IDENTIFICATION DIVISION.
PROGRAM-ID. RECURSIVE-HANOI IS RECURSIVE.
DATA DIVISION.
LOCAL-STORAGE SECTION.
01  SMALLER                     PIC 99 COMP-5.
LINKAGE SECTION.
01  DISCS                       PIC 99 COMP-5.
01  SOURCE-PEG                  PIC 9 COMP-5.
01  TARGET-PEG                  PIC 9 COMP-5.
01  SPARE-PEG                   PIC 9 COMP-5.
PROCEDURE DIVISION USING DISCS SOURCE-PEG TARGET-PEG SPARE-PEG.
    IF DISCS > 0
        SUBTRACT 1 FROM DISCS GIVING SMALLER
        CALL "RECURSIVE-HANOI" USING BY CONTENT SMALLER SOURCE-PEG SPARE-PEG TARGET-PEG
        CALL "WRITE-MOVE" USING DISCS SOURCE-PEG TARGET-PEG
        CALL "RECURSIVE-HANOI" USING BY CONTENT SMALLER SPARE-PEG TARGET-PEG SOURCE-PEG
    END-IF
    GOBACK.
END PROGRAM RECURSIVE-HANOI.
*> endregion recursive

*> region cyclic
*> The cyclic Tower of Hanoi article's two transfers, each disc moving one peg on (A to B to C to A),
*> two RECURSIVE programs that call each other.
*> To the adjacent tower: K - 1 discs to the post-adjacent tower, out of the way, disc K one on,
*> and the K - 1 two on again, on top of it.
IDENTIFICATION DIVISION.
PROGRAM-ID. ADJACENT IS RECURSIVE.
DATA DIVISION.
LOCAL-STORAGE SECTION.
01  SMALLER                     PIC 99 COMP-5.
01  SPARE-PEG                   PIC 9 COMP-5.
LINKAGE SECTION.
01  DISCS                       PIC 99 COMP-5.
01  SRC-PEG                     PIC 9 COMP-5.
01  DST-PEG                     PIC 9 COMP-5.
PROCEDURE DIVISION USING DISCS SRC-PEG DST-PEG.
    IF DISCS > 0
        SUBTRACT 1 FROM DISCS GIVING SMALLER
        COMPUTE SPARE-PEG = FUNCTION MOD(DST-PEG + 1, 3)
        CALL "POST-ADJACENT" USING BY CONTENT SMALLER SRC-PEG SPARE-PEG
        CALL "WRITE-MOVE" USING DISCS SRC-PEG DST-PEG
        CALL "POST-ADJACENT" USING BY CONTENT SMALLER SPARE-PEG DST-PEG
    END-IF
    GOBACK.
END PROGRAM ADJACENT.

*> To the post-adjacent tower: K - 1 discs two on, disc K one on, the K - 1 one on (back where they
*> began), disc K one on again, and the K - 1 two on.
IDENTIFICATION DIVISION.
PROGRAM-ID. POST-ADJACENT IS RECURSIVE.
DATA DIVISION.
LOCAL-STORAGE SECTION.
01  SMALLER                     PIC 99 COMP-5.
01  MIDDLE-PEG                  PIC 9 COMP-5.
LINKAGE SECTION.
01  DISCS                       PIC 99 COMP-5.
01  SRC-PEG                     PIC 9 COMP-5.
01  DST-PEG                     PIC 9 COMP-5.
PROCEDURE DIVISION USING DISCS SRC-PEG DST-PEG.
    IF DISCS > 0
        SUBTRACT 1 FROM DISCS GIVING SMALLER
        COMPUTE MIDDLE-PEG = FUNCTION MOD(SRC-PEG + 1, 3)
        CALL "POST-ADJACENT" USING BY CONTENT SMALLER SRC-PEG DST-PEG
        CALL "WRITE-MOVE" USING DISCS SRC-PEG MIDDLE-PEG
        CALL "ADJACENT" USING BY CONTENT SMALLER DST-PEG SRC-PEG
        CALL "WRITE-MOVE" USING DISCS MIDDLE-PEG DST-PEG
        CALL "POST-ADJACENT" USING BY CONTENT SMALLER SRC-PEG DST-PEG
    END-IF
    GOBACK.
END PROGRAM POST-ADJACENT.
*> endregion cyclic

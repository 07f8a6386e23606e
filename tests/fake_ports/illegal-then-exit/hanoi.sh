# Disc 2 from under disc 1, the first move; for binary a legal move after it too; then exit 1,
# whatever n is: the first wrong move is the verdict however the reading and the exit race.
echo 2 0 2
if [ "$1" = binary ]; then echo 1 0 2; fi
exit 1

# iterative
legal() {
  a="$1[@]"
  a=("${!a}")
  b="$2[@]"
  b=("${!b}")
  if [ ! "${a[0]}" ]; then
    echo "$2""$1"
  elif [ ! "${b[0]}" ]; then
    echo "$1""$2"
  elif [ "${a[-1]}" -lt "${b[-1]}" ]; then
    echo "$1""$2"
  else
    echo "$2""$1"
  fi
}

i_toh() {
  A=($(seq "$1" -1 1))
  B=()
  C=()
  while true; do
    for i in $([ $((3 % 2)) -eq 0 ] && echo AB AC BC || echo AC AB BC); do
      x=$(legal "${i:0:1}" "${i:1:2}")
      declare -n orig=${x:0:1}
      declare -n targ=${x:1:2}
      targ+=("${orig[-1]}")
      unset "orig[-1]"
      echo -e "0: ${A[*]}\n1: ${B[*]}\n2: ${C[*]}\n"
      if [ "${#B[*]}" -eq "$1" ] || [ "${#C[*]}" -eq "$1" ]; then
        return 0
      fi
    done
  done
}

i_toh 3

# one template per line: NAME[OFFSET], joined by |
bias
w[0]
lower[-1]|lower[0]
shape[0]
suf3[0]
c2[0]
c2[-1]|c2[0]

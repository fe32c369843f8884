#!/usr/bin/env python3
"""The CRFsuite side of scripts/bench/crfsuite.ts, through python-crfsuite (CRFsuite 0.12's C library).

    crfsuite-peer.py train TRAIN.crf MODEL [MAX_ITERATIONS]   -> one JSON line: readSeconds, trainCpu, trainWall
    crfsuite-peer.py tag MODEL TEST.crf OUT                   -> OUT: one label per line, a blank line per sequence

Reads CRFsuite's attribute format (LABEL<TAB>ATTR..., '\\:' and '\\\\' escapes). Training is L-BFGS with CRFsuite's
defaults (c2 = 1, until its convergence test), or stopped after MAX_ITERATIONS. trainCpu is the CPU of the
train() call alone (user + sys of this process around it).
"""
import json
import resource
import sys
import time

import pycrfsuite


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def unescape(field):
    if '\\' not in field and ':' not in field:
        return field
    out, i = [], 0
    while i < len(field):
        c = field[i]
        if c == '\\' and i + 1 < len(field) and field[i + 1] in ':\\':
            out.append(field[i + 1])
            i += 2
            continue
        if c == ':':
            break  # a weight follows; the benchmark files have none
        out.append(c)
        i += 1
    return ''.join(out)


def read(path):
    seqs, xs, ys = [], [], []
    with open(path, encoding='utf-8') as f:
        for line in f:
            line = line.rstrip('\n')
            if line.strip() == '':
                if xs:
                    seqs.append((xs, ys))
                xs, ys = [], []
                continue
            fields = line.split('\t')
            ys.append(fields[0])
            xs.append([unescape(a) for a in fields[1:] if a])
    if xs:
        seqs.append((xs, ys))
    return seqs


def main(argv):
    if argv[0] == 'train':
        t0 = time.monotonic()
        seqs = read(argv[1])
        read_seconds = time.monotonic() - t0
        trainer = pycrfsuite.Trainer(verbose=False)
        for xs, ys in seqs:
            trainer.append(pycrfsuite.ItemSequence(xs), ys)
        if len(argv) > 3:
            trainer.set('max_iterations', int(argv[3]))
        c0, w0 = cpu(), time.monotonic()
        trainer.train(argv[2])
        print(json.dumps({'readSeconds': read_seconds, 'trainCpu': cpu() - c0, 'trainWall': time.monotonic() - w0,
                          'iterations': trainer.logparser.last_iteration.get('num') if trainer.logparser.last_iteration else None}))
    elif argv[0] == 'tag':
        tagger = pycrfsuite.Tagger()
        tagger.open(argv[1])
        with open(argv[3], 'w', encoding='utf-8') as out:
            for xs, _ in read(argv[2]):
                out.write('\n'.join(tagger.tag(pycrfsuite.ItemSequence(xs))) + '\n\n')
    else:
        sys.exit(f'unknown command {argv[0]}')


if __name__ == '__main__':
    main(sys.argv[1:])

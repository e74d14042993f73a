#!/usr/bin/env python3
"""The library's layers call downwards only (docs/ARCHITECTURE.md, "Layout").

usage: check_layers.py [-v] SRC_DIR

-v prints, for every module in a cycle, its edges to the other modules of
the cycle and what makes each one (the functions it calls, the files it
includes): where to look when mending one.

Two checks over the C files of SRC_DIR (src/), exit status 1 when either
finds something, with one line per finding:

 1. Includes go down the layers, never up or sideways to a peer:
        base  the shared vocabulary in src/ itself (BASE below)
        store cuda ref
        jit tuning
        gpu   (all of src/gpu/)
        api   the rest of src/ itself: the facade
    A file may include files of its own folder (for gpu: of src/gpu/) and
    of any lower layer. A folder this script does not know is a finding
    too: name its layer here when you add one.

 2. No two modules depend on each other, through any chain, in either of
    two graphs. A module is a .c file and the header of its name. Calls:
    A depends on B when A's .c calls (or takes the address of) a function
    that B's .c defines. Includes: A depends on B when a file of A
    includes B's header. A cycle fails unless KNOWN_CYCLES lists it (it
    is empty: the three older than this check are mended), and so does a
    listed one that is gone (then delete its line).

Plain text matching, no preprocessor: an #include under #if counts.
"""
import os
import re
import sys

# Files of src/ itself that every layer may include.
BASE = {'checked_size', 'descriptors', 'dtype', 'embedded', 'error', 'note_once', 'object_pool',
        'rnn_cell_traits', 'rnn_key', 'rnn_pass', 'rnn_problem', 'thread_count', 'weights_layout'}
LAYER = {'base': 0, 'store': 1, 'cuda': 1, 'ref': 1, 'jit': 2, 'tuning': 2, 'gpu': 3, 'api': 4}
# Module cycles allowed for now, each as the graph ("calls" or "includes")
# and its sorted modules: none (issue 28 mended the three older than this
# check; the history of this line shows how).
KNOWN_CYCLES = set()

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
IDENT = re.compile(r'\b[A-Za-z_]\w*\b')
# A function definition as the house style writes it: the return type and
# the name at the start of a line, the parameters, then the body's brace.
DEFINITION = re.compile(r'^(?!static\b)[A-Za-z_][\w \*]*?[\s\*](\w+)\s*\([^;{}]*\)\s*\{', re.M)
KEYWORDS = {'if', 'for', 'while', 'switch', 'return', 'sizeof'}


def strip(text):
    """The code without comments and with empty string and character literals."""
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    text = re.sub(r'"(\\.|[^"\\\n])*"', '""', text)
    return re.sub(r"'(\\.|[^'\\\n])*'", "''", text)


def layer_of(module):
    """The layer name of a module (its path below src/, no extension), or None."""
    if '/' not in module:
        return 'base' if module in BASE else 'api'
    top = module.split('/')[0]
    return top if top in LAYER else None


def main(src, verbose=False):
    src = os.path.abspath(src)
    files = {}
    for dirpath, dirnames, names in os.walk(src):
        dirnames.sort()
        for name in sorted(names):
            if name.endswith(('.c', '.h')):
                path = os.path.join(dirpath, name)
                with open(path, encoding='utf-8') as f:
                    files[os.path.relpath(path, src)] = f.read()

    def resolve(rel, inc):
        """What #include "inc" in src/rel names below src/, or None (elsewhere)."""
        for cand in (os.path.join(os.path.dirname(rel), inc), inc):
            cand = os.path.normpath(cand)
            if cand in files:
                return cand
        return None

    def module(rel):
        return os.path.splitext(rel)[0]

    problems = []
    graphs = {'calls': {}, 'includes': {}}
    # Why each edge exists, for -v: (graph, from, to) -> names.
    why = {}
    for rel, text in files.items():
        mod = module(rel)
        for g in graphs.values():
            g.setdefault(mod, set())
        mine = layer_of(mod)
        if mine is None:
            problems.append(f'src/{rel}: folder {rel.split("/")[0]}/ has no layer in '
                            f'tools/check_layers.py')
            continue
        for inc in INCLUDE.findall(text):
            target = resolve(rel, inc)
            if target is None:
                continue
            tmod = module(target)
            if tmod != mod:
                graphs['includes'][mod].add(tmod)
                why.setdefault(('includes', mod, tmod), set()).add(f'src/{rel} includes {inc}')
            theirs = layer_of(tmod)
            if theirs is None or theirs == mine:
                continue
            if LAYER[theirs] >= LAYER[mine]:
                problems.append(f'src/{rel}: includes "{inc}": layer {mine} may not include '
                                f'layer {theirs} (above it or beside it)')

    # Calls: the non-static functions each .c defines, then who names them.
    code = {rel: strip(text) for rel, text in files.items() if rel.endswith('.c')}
    defined = {}
    for rel, text in code.items():
        for name in DEFINITION.findall(text):
            if name not in KEYWORDS:
                defined[name] = module(rel)
    for rel, text in code.items():
        mod = module(rel)
        for name in set(IDENT.findall(text)):
            owner = defined.get(name)
            if owner and owner != mod:
                graphs['calls'][mod].add(owner)
                why.setdefault(('calls', mod, owner), set()).add(name + '()')

    found = set()
    for kind, graph in sorted(graphs.items()):
        for cycle in strongly_connected(graph):
            key = (kind,) + tuple(sorted(cycle))
            found.add(key)
            if key not in KNOWN_CYCLES:
                problems.append(f'modules depend on each other ({kind}): ' + ' <-> '.join(key[1:]))
            if verbose:
                print(f'cycle ({kind}): ' + ' <-> '.join(key[1:]))
                for a in key[1:]:
                    for b in key[1:]:
                        if b in graph.get(a, ()):
                            print(f'  {a} -> {b}: ' + ', '.join(sorted(why[(kind, a, b)])))
    for key in sorted(KNOWN_CYCLES - found):
        problems.append(f'a known cycle is gone ({key[0]}; delete it from KNOWN_CYCLES): ' +
                        ' <-> '.join(key[1:]))

    for p in problems:
        print(p)
    print(f'check_layers: {len(files)} files, {len(problems)} problem(s)')
    return 1 if problems else 0


def strongly_connected(graph):
    """The strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)

    sys.setrecursionlimit(max(1000, 4 * len(graph)))
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


if __name__ == '__main__':
    args = sys.argv[1:]
    verbose = args[:1] == ['-v']
    if verbose:
        args = args[1:]
    if len(args) != 1:
        sys.exit(__doc__.strip().split('\n\n')[1])
    sys.exit(main(args[0], verbose))

# SPDX-License-Identifier: MIT
"""wppmeta.py — an independent reader of wppcc's path metadata (section
"wpp_meta", layout in user/include/wpp/meta_format.h) and an independent
Ball-Larus regeneration, for the oracles.  Python stdlib only; written from
the header, sharing no code with symbolizer/ or user/decode/."""
import struct

HDR = struct.Struct("<8sIIQQIIIIIIIIQQQQQQ")
FUNC = struct.Struct("<QQIIIIIIIIII")
EDGE = struct.Struct("<IIQQIIII")
EDGE_KINDS = ["real", "entry", "return", "noreturn", "back-exit", "back-entry", "call-exit",
              "call-entry", "cut-exit", "cut-entry"]
# Start/end names as the decoder prints them (docs/cli.md).
START_NAME = {"entry": "entry", "back-entry": "back-edge", "call-entry": "call", "cut-entry": "cut"}
END_NAME = {"return": "return", "noreturn": "noreturn", "back-exit": "back-edge",
            "call-exit": "call", "cut-exit": "cut"}


class MetaError(Exception):
    pass


def elf_section_range(path, wanted):
    """(file offset, size) of the ELF section named wanted (bytes), or None."""
    d = open(path, "rb").read()
    if d[:4] != b"\x7fELF":
        raise MetaError(f"{path}: not ELF")
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3a)

    def sh(i):
        return struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize)
    stroff = sh(shstrndx)[4]
    for i in range(shnum):
        name, _, _, _, off, size = sh(i)[:6]
        end = d.index(b"\0", stroff + name)
        if d[stroff + name:end] == wanted:
            return off, size
    return None


def elf_section(path, wanted):
    r = elf_section_range(path, wanted)
    if r is None:
        return None
    off, size = r
    with open(path, "rb") as f:
        f.seek(off)
        return f.read(size)


class Func:
    def __init__(self, name, stable_id, nblocks, edges):
        self.name, self.stable_id, self.nblocks = name, stable_id, nblocks
        self.out = {}
        for e in edges:  # (src, dst, val, kind, cfg_src, cfg_dst), stored sorted
            self.out.setdefault(e[0], []).append(e)

    def regenerate(self, pid):
        """Blocks, start edge kind, end edge kind and the final edge of path
        id pid; MetaError if pid is not a path of this DAG."""
        node, rem = self.nblocks, pid
        blocks, first, last = [], None, None
        for _ in range(2 * self.nblocks + 4):
            cand = [e for e in self.out.get(node, []) if e[2] <= rem]
            if not cand:
                raise MetaError(f"{self.name}: path {pid} leaves the DAG at node {node}")
            e = cand[-1]
            rem -= e[2]
            first = first or e
            last = e
            node = e[1]
            if node == self.nblocks + 1:
                if rem:
                    raise MetaError(f"{self.name}: path {pid} reaches EXIT with remainder {rem}")
                return blocks, EDGE_KINDS[first[3]], EDGE_KINDS[last[3]], last
            blocks.append(node)
        raise MetaError(f"{self.name}: path {pid} does not reach EXIT")


def load_functions(paths):
    """name -> Func over every blob of every object in paths."""
    funcs = {}
    for path in paths:
        sec = elf_section(path, b"wpp_meta")
        if sec is None:
            continue
        pos = 0
        while pos + HDR.size <= len(sec):
            h = HDR.unpack_from(sec, pos)
            (magic, _ver, _hsize, total, _tu, _mode, nfuncs, _nb, _ne, _nl, _src, _prod, _r,
             funcs_off, _blocks_off, edges_off, _lines_off, strtab_off, strtab_size) = h
            if magic != b"WPPMETA\0" or total < HDR.size:
                raise MetaError(f"{path}: bad metadata blob at {pos}")
            blob = sec[pos:pos + total]
            strtab = blob[strtab_off:strtab_off + strtab_size]
            for i in range(nfuncs):
                f = FUNC.unpack_from(blob, funcs_off + i * FUNC.size)
                stable_id, _np, _li, name_str, _fs, _line, _fl, nblocks, _fb, nedges, first_edge, _r0 = f
                name = strtab[name_str:strtab.index(b"\0", name_str)].decode()
                edges = []
                for k in range(first_edge, first_edge + nedges):
                    src, dst, val, _inc, kind, cfg_src, cfg_dst, _r1 = EDGE.unpack_from(
                        blob, edges_off + k * EDGE.size)
                    edges.append((src, dst, val, kind, cfg_src, cfg_dst))
                funcs.setdefault(name, Func(name, stable_id, nblocks, edges))
            pos += (total + 7) & ~7
    return funcs

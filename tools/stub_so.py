#!/usr/bin/env python3
# A stand-in for a shared library: every dynamic symbol of SRC, with its symbol versions, defined again
# (functions return 0, objects are zeroed storage) under SRC's soname, in a few KB. For loading libraries
# bound with BIND_NOW (Debian's FFmpeg) on a machine without their optional dependencies, which are never
# called there (tools/pack_av.sh --device-libs).
#   tools/stub_so.py SRC OUT_DIR
import os
import re
import subprocess
import sys
import tempfile

src, outdir = sys.argv[1], sys.argv[2]
work = tempfile.mkdtemp()
name = os.path.basename(src)
out = subprocess.run(['readelf', '--dyn-syms', '-W', src], capture_output=True, text=True).stdout
entries = []  # (name, type, size, version or None, default)
seen = set()
for line in out.splitlines():
    f = line.split()
    if len(f) < 8 or not f[0].endswith(':'): continue
    num, val, size, typ, bind, vis, ndx, nm = f[:8]
    if ndx in ('UND', 'ABS') or bind not in ('GLOBAL', 'WEAK') or typ not in ('FUNC', 'OBJECT', 'TLS', 'IFUNC', 'NOTYPE'): continue
    ver, dflt = None, True
    if '@@' in nm: nm, ver = nm.split('@@')
    elif '@' in nm: nm, ver = nm.split('@'); dflt = False
    if (nm, ver) in seen: continue
    seen.add((nm, ver))
    size = int(size, 0) if size.startswith('0x') else int(size)
    entries.append((nm, typ, max(size, 1), ver, dflt))
soname = subprocess.run(['readelf', '-d', src], capture_output=True, text=True).stdout
sm = re.search(r'Library soname: \[(.*)\]', soname)
so = sm.group(1) if sm else name
vd = subprocess.run(['readelf', '-V', '-W', src], capture_output=True, text=True).stdout
defs, sec = [], None
for line in vd.splitlines():
    if 'Version definition section' in line: sec = 'def'; continue
    if 'Version needs section' in line or 'Version symbols section' in line: sec = None
    if sec == 'def':
        m = re.search(r'Name: (\S+)', line)
        if m and 'BASE' not in line and m.group(1) not in defs: defs.append(m.group(1))
versioned = bool(defs)
asm, n = [], 0
for nm, typ, size, ver, dflt in entries:
    n += 1
    lab = f'__stub_{n}' if versioned and ver and ver != so else nm
    if typ in ('FUNC', 'IFUNC', 'NOTYPE'):
        asm += ['.text', f'.globl "{lab}"', f'.type "{lab}",@function', f"\"{lab}\": xorl %eax, %eax; ret"]
    elif typ == 'OBJECT':
        asm += ['.bss', f'.globl "{lab}"', f'.type "{lab}",@object', f'.size "{lab}",{size}', f'"{lab}": .zero {size}']
    else:
        asm += ['.section .tbss,"awT",@nobits', f'.globl "{lab}"', f'.type "{lab}",@tls_object', f'.size "{lab}",{size}', f'"{lab}": .zero {size}']
    if lab != nm:
        asm.append(f'.symver "{lab}", "{nm}{"@@" if dflt else "@"}{ver}"')
asm.append('.section .note.GNU-stack,"",@progbits')
open(f'{work}/{name}.S', 'w').write('\n'.join(asm) + '\n')
vs = []
if versioned:
    plain = [nm for nm, typ, size, ver, dflt in entries if not ver or ver == so]
    lines = [f'{d} {{ }};' for d in defs]
    lines.append('SATLAB_STUB { ' + ('global: ' + ''.join(f'"{p}"; ' for p in plain) if plain else '') + 'local: *; };')
    open(f'{work}/{name}.map', 'w').write('\n'.join(lines) + '\n')
    vs = [f'-Wl,--version-script={work}/{name}.map']
subprocess.run(['gcc', '-shared', '-nostdlib', f'-Wl,-soname,{so}', *vs, f'{work}/{name}.S', '-o', os.path.join(outdir, name)], check=True)
print(f'{name}: stub of {len(entries)} symbols, {len(defs)} versions')

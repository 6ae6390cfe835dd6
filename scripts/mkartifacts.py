#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The crafted artifacts of verify's artifact tests (issue 35), for
scripts/build-artifact-fixtures.sh, which documents them (and
docs/packaging.md, "The artifact fixtures").

  mkartifacts.py oci SRC DIR          an OCI image layout of two gzip layers
  mkartifacts.py docker-save SRC TAR  the same image as docker (>= 25) saves it
  mkartifacts.py bad-digest DIR OUT   DIR with layer 2's bytes changed, not its digest
  mkartifacts.py evil SRC OUTDIR      tars with hostile member names and links
  mkartifacts.py bomb SRC OUT         a .tar.zst whose ELF member claims 20 GiB
  mkartifacts.py corrupt-gz GZ OUTDIR corrupt.tar.gz, corrupt-crc.tar.gz from GZ

SRC is the fixtures directory (build/fixtures): members are copies of its
files, named by fixture (plain, existing, kit/cprog...). Every output is
the same bytes from the same inputs: members at time 0, owner 0:0 without
names, fixed order; JSON compact with sorted keys; gzip at time 0. The
image's layers (what each holds, what is visible after the whiteouts) are
LAYERS below.
"""
import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zlib

REF = 'test'
EPOCH = '1970-01-01T00:00:00Z'
MT_INDEX = 'application/vnd.oci.image.index.v1+json'
MT_MANIFEST = 'application/vnd.oci.image.manifest.v1+json'
MT_CONFIG = 'application/vnd.oci.image.config.v1+json'
MT_TAR = 'application/vnd.oci.image.layer.v1.tar'
MT_TGZ = MT_TAR + '+gzip'

# The image: (name, kind, what) per member, in archive order. kind: d a
# directory, f a file of the fixture `what`, t a file holding the text
# `what`, l a symlink to `what`. Layer 1's names start with "./" (as
# `tar -C rootfs -cf - .` writes them), layer 2's do not (as buildkit's).
# Layer 2 deletes usr/bin/b (.wh.b), hides everything layer 1 put in
# etc/old (the opaque whiteout .wh..wh..opq) and replaces usr/bin/a.
# Visible: etc/keep.conf, etc/old/new.conf, usr/bin/a (kit/cprog),
# usr/bin/a-link -> a, usr/bin/c (kit/libkit.so.1).
LAYERS = [
    [('./', 'd', None),
     ('./etc/', 'd', None),
     ('./etc/keep.conf', 't', 'layer 1, kept\n'),
     ('./etc/old/', 'd', None),
     ('./etc/old/old.conf', 't', 'layer 1, hidden by the opaque whiteout\n'),
     ('./etc/old/tool', 'f', 'pie'),
     ('./usr/', 'd', None),
     ('./usr/bin/', 'd', None),
     ('./usr/bin/a', 'f', 'plain'),
     ('./usr/bin/a-link', 'l', 'a'),
     ('./usr/bin/b', 'f', 'existing')],
    [('etc/', 'd', None),
     ('etc/old/', 'd', None),
     ('etc/old/.wh..wh..opq', 't', ''),
     ('etc/old/new.conf', 't', 'layer 2, beside its opaque whiteout\n'),
     ('usr/', 'd', None),
     ('usr/bin/', 'd', None),
     ('usr/bin/.wh.b', 't', ''),
     ('usr/bin/a', 'f', 'kit/cprog'),
     ('usr/bin/c', 'f', 'kit/libkit.so.1')],
]


def info(name, kind='f', size=0, link=''):
    """A TarInfo at time 0, owned by 0:0 with no names."""
    ti = tarfile.TarInfo(name)
    ti.mtime, ti.uid, ti.gid, ti.uname, ti.gname = 0, 0, 0, '', ''
    ti.type = {'d': tarfile.DIRTYPE, 'l': tarfile.SYMTYPE,
               'h': tarfile.LNKTYPE}.get(kind, tarfile.REGTYPE)
    ti.mode = 0o755 if kind in 'dx' else 0o777 if kind == 'l' else 0o644
    ti.size, ti.linkname = size, link
    return ti


def read(src, fixture):
    with open(os.path.join(src, fixture), 'rb') as f:
        return f.read()


def tar_of(src, members):
    """A POSIX (pax) tar of (name, kind, what) members, as bytes."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode='w', format=tarfile.PAX_FORMAT) as t:
        for name, kind, what in members:
            if kind == 'd':
                t.addfile(info(name, 'd'))
            elif kind == 'l':
                t.addfile(info(name, 'l', link=what))
            elif kind == 'h':
                t.addfile(info(name, 'h', link=what))
            else:
                data = read(src, what) if kind in 'fx' else what.encode()
                ti = info(name, 'x' if kind == 'f' else 't', len(data))
                t.addfile(ti, io.BytesIO(data))
    return out.getvalue()


def canon(obj):
    return json.dumps(obj, sort_keys=True, separators=(',', ':')).encode()


def sha(data):
    return 'sha256:' + hashlib.sha256(data).hexdigest()


def put_blob(blobs, data):
    """Store data under its digest in blobs (a dict); its descriptor."""
    blobs[sha(data)] = data
    return {'digest': sha(data), 'size': len(data)}


def image_blobs(src, compress):
    """The image's blobs {digest: bytes} and its manifest's descriptor."""
    blobs, layers, diff_ids = {}, [], []
    for i, members in enumerate(LAYERS):
        tar = tar_of(src, members)
        diff_ids.append(sha(tar))
        data = gzip.compress(tar, 6, mtime=0) if compress else tar
        layers.append(dict(put_blob(blobs, data),
                           mediaType=MT_TGZ if compress else MT_TAR))
    config = {'architecture': 'amd64', 'os': 'linux', 'created': EPOCH,
              'config': {'Env': ['PATH=/usr/bin:/bin']},
              'rootfs': {'type': 'layers', 'diff_ids': diff_ids},
              'history': [{'created': EPOCH, 'created_by': 'layer %d' % (i + 1)}
                          for i in range(len(LAYERS))]}
    manifest = {'schemaVersion': 2, 'mediaType': MT_MANIFEST,
                'config': dict(put_blob(blobs, canon(config)), mediaType=MT_CONFIG),
                'layers': layers}
    desc = dict(put_blob(blobs, canon(manifest)), mediaType=MT_MANIFEST)
    return blobs, desc, manifest


def index_of(desc, annotations):
    return canon({'schemaVersion': 2, 'mediaType': MT_INDEX,
                  'manifests': [dict(desc, annotations=annotations,
                                     platform={'architecture': 'amd64', 'os': 'linux'})]})


def cmd_oci(src, out):
    """The layout as a directory: oci-layout, index.json, blobs/sha256/."""
    blobs, desc, _ = image_blobs(src, True)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, 'blobs', 'sha256'))
    for digest, data in blobs.items():
        with open(os.path.join(out, 'blobs', 'sha256', digest[7:]), 'wb') as f:
            f.write(data)
    with open(os.path.join(out, 'oci-layout'), 'wb') as f:
        f.write(canon({'imageLayoutVersion': '1.0.0'}))
    with open(os.path.join(out, 'index.json'), 'wb') as f:
        f.write(index_of(desc, {'org.opencontainers.image.ref.name': REF}))


def cmd_docker_save(src, out):
    """docker save's tar (docker >= 25): an OCI layout of uncompressed
    layers, plus manifest.json and repositories for older readers."""
    blobs, desc, manifest = image_blobs(src, False)
    name = 'elf-buildid-fixture'
    files = {'blobs/sha256/' + d[7:]: data for d, data in blobs.items()}
    files['oci-layout'] = canon({'imageLayoutVersion': '1.0.0'})
    files['index.json'] = index_of(desc, {
        'io.containerd.image.name': 'docker.io/library/%s:%s' % (name, REF),
        'org.opencontainers.image.ref.name': REF})
    files['manifest.json'] = canon([{
        'Config': 'blobs/sha256/' + manifest['config']['digest'][7:],
        'RepoTags': ['%s:%s' % (name, REF)],
        'Layers': ['blobs/sha256/' + l['digest'][7:] for l in manifest['layers']]}])
    files['repositories'] = canon({name: {REF: manifest['config']['digest'][7:]}})
    members = [('blobs/', 'd', None), ('blobs/sha256/', 'd', None)]
    members += [(n, 'b', files[n]) for n in sorted(files)]
    write(out, tar_bytes(members))


def tar_bytes(members):
    """A pax tar of (name, kind, what), kind b: what is the bytes."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode='w', format=tarfile.PAX_FORMAT) as t:
        for name, kind, what in members:
            if kind == 'b':
                t.addfile(info(name, 't', len(what)), io.BytesIO(what))
            else:
                t.addfile(info(name, kind, link=what or ''))
    return out.getvalue()


def write(path, data):
    with open(path + '.tmp', 'wb') as f:
        f.write(data)
    os.replace(path + '.tmp', path)


def cmd_bad_digest(image, out):
    """A copy of the layout whose layer 2 blob, still named by its old
    digest, holds other bytes: the gzip header's time (bytes 4 to 7) is 1,
    not 0. The same size, a valid gzip of the same layer: only checking
    the digest tells."""
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(image, out)
    with open(os.path.join(out, 'index.json'), 'rb') as f:
        mdigest = json.load(f)['manifests'][0]['digest']
    with open(os.path.join(out, 'blobs', 'sha256', mdigest[7:]), 'rb') as f:
        layer = json.load(f)['layers'][1]['digest']
    path = os.path.join(out, 'blobs', 'sha256', layer[7:])
    with open(path, 'rb') as f:
        data = bytearray(f.read())
    if data[:2] != b'\x1f\x8b' or data[4:8] != b'\0\0\0\0':
        sys.exit('mkartifacts: %s: not a gzip stream of time 0' % path)
    data[4] = 1
    write(path, bytes(data))


# The hostile tars: (file, members), kind h a hard link to `what`.
EVIL = [
    ('dotdot.tar', [('../evil', 'f', 'kit/cprog'),
                    ('usr/bin/ok', 'f', 'kit/libkit.so.1')]),
    ('abspath.tar', [('/abs/path', 'f', 'kit/cprog'),
                     ('usr/bin/ok', 'f', 'kit/libkit.so.1')]),
    ('symlink-bin.tar', [('usr/bin/real', 'f', 'kit/cprog'),
                         ('usr/bin/tool', 'l', '/usr/bin/true'),
                         ('usr/bin/tool-up', 'l', '../../../../../../usr/bin/true'),
                         ('usr/bin/tool-in', 'l', 'real')]),
    ('hardlink-missing.tar', [('usr/bin/ok', 'f', 'kit/cprog'),
                              ('usr/bin/hl', 'h', 'usr/bin/missing')]),
]


def cmd_evil(src, outdir):
    for name, members in EVIL:
        write(os.path.join(outdir, name), tar_of(src, members))


BOMB_SIZE = 20 << 30
CHUNK = 16 << 20


def zstd(data):
    """One zstd frame of data, its size in the frame header."""
    return subprocess.run(['zstd', '-q', '-19', '-c', '--stream-size=%d' % len(data)],
                          input=data, stdout=subprocess.PIPE, check=True).stdout


def cmd_bomb(src, out):
    """usr/bin/bomb: 20 GiB (a pax size record), an ELF header (kit/cprog's
    first 512 bytes) then zeros; then usr/bin/after, kit/cprog whole. Built
    as zstd frames, concatenated (a valid stream): one of 16 MiB of zeros
    compressed once and repeated, so the file is some 650 KiB and takes a
    second to write."""
    elf = read(src, 'kit/cprog')
    head = info('usr/bin/bomb', 'x', BOMB_SIZE).tobuf(tarfile.PAX_FORMAT, 'utf-8', 'strict')
    tail = info('usr/bin/after', 'x', len(elf)).tobuf(tarfile.PAX_FORMAT, 'utf-8', 'strict')
    tail += elf + b'\0' * (-len(elf) % 512) + b'\0' * 1024
    count, rest = divmod(BOMB_SIZE - 512, CHUNK)
    zeros = zstd(bytes(CHUNK))
    parts = [zstd(head + elf[:512])] + [zeros] * count
    if rest:
        parts.append(zstd(bytes(rest)))
    parts.append(zstd(tail))
    write(out, b''.join(parts))
    # The size zstd -l must report: what a reader decompresses.
    print(len(head) + BOMB_SIZE + len(tail))


def first_break(data, want):
    """The first offset from the middle on, by steps of 509 bytes, where
    inverting 16 bytes of data (gzip -n's: a 10-byte header) leaves a
    deflate stream that decodes to its end (want True: to other bytes,
    the CRC-32 alone tells) or stops on invalid data (want False). The
    decoder over the unchanged bytes before each offset is kept, copied
    for each try."""
    base, pos = zlib.decompressobj(-15), 10
    for at in range(len(data) // 2, len(data) - 24, 509):
        base.decompress(data[pos:at])
        pos = at
        d = base.copy()
        try:
            d.decompress(bytes(b ^ 0xff for b in data[at:at + 16]) + data[at + 16:])
            whole = d.eof
        except zlib.error:
            whole = False
        if whole == want:
            return at
    return None


def cmd_corrupt_gz(src, outdir):
    """Two copies of the gzip file src, each with 16 bytes inverted in its
    deflate data (first_break): corrupt.tar.gz, where the decoder stops
    on invalid data (gzip -t: format violated), and corrupt-crc.tar.gz,
    which decodes to the end, to other bytes, and only the CRC-32 in the
    trailer tells (gzip -t: crc error)."""
    with open(src, 'rb') as f:
        data = f.read()
    if data[:4] != b'\x1f\x8b\x08\x00':
        sys.exit('mkartifacts: %s: not a gzip stream without names' % src)
    for name, want in (('corrupt.tar.gz', False), ('corrupt-crc.tar.gz', True)):
        at = first_break(data, want)
        if at is None:
            sys.exit('mkartifacts: %s: no offset gives %s' % (src, name))
        bad = bytearray(data)
        bad[at:at + 16] = bytes(b ^ 0xff for b in data[at:at + 16])
        write(os.path.join(outdir, name), bytes(bad))


def main(argv):
    cmds = {'oci': cmd_oci, 'docker-save': cmd_docker_save,
            'bad-digest': cmd_bad_digest, 'evil': cmd_evil, 'bomb': cmd_bomb,
            'corrupt-gz': cmd_corrupt_gz}
    if len(argv) != 4 or argv[1] not in cmds:
        sys.exit(__doc__)
    cmds[argv[1]](argv[2], argv[3])


if __name__ == '__main__':
    main(sys.argv)

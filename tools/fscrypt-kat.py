#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Known answers for the fscrypt extent encryption KUnit suite.

Computes, without the kernel, the values the suite checks against:
- HKDF-SHA512 keys derived as fscrypt v2 derives them (fs/crypto/hkdf.c):
  per-extent AES-256-XTS keys, the Adiantum DIRECT_KEY key and the master
  key identifier;
- one 4096-byte data unit encrypted with AES-256-XTS and with Adiantum
  (XChaCha12 + AES-256 + NHPoly1305, as crypto/adiantum.c builds it).

AES comes from the "cryptography" package; everything else is written here in
plain Python, and checked at start-up against RFC 5869 and the kernel's
Adiantum test vectors (crypto/testmgr.h of the prepared tree, when present).

Regenerate with:    /usr/bin/python3 tools/fscrypt-kat.py
Check a test file:  /usr/bin/python3 tools/fscrypt-kat.py --check FILE.c
"""

import hashlib
import hmac
import os
import re
import struct
import sys

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

# fs/crypto/fscrypt_private.h and include/uapi/linux/fscrypt.h
HKDF_CONTEXT_KEY_IDENTIFIER = 1
HKDF_CONTEXT_DIRECT_KEY = 3
# Not in 6.1: the series adds it for per-extent keys, as
# HKDF_CONTEXT_PER_EXTENT_ENC_KEY in fs/crypto/fscrypt_private.h.
HKDF_CONTEXT_PER_EXTENT_KEY = 9
FSCRYPT_MODE_ADIANTUM = 9

TESTMGR_H = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         "..", "build", "linux", "crypto", "testmgr.h")

MASK32 = (1 << 32) - 1
MASK64 = (1 << 64) - 1
MASK128 = (1 << 128) - 1


# ---- HKDF (RFC 5869) and the fscrypt variant of it ----
def hkdf_extract(hash_name, salt, ikm):
    return hmac.new(salt, ikm, hash_name).digest()


def hkdf_expand(hash_name, prk, info, length):
    okm, block, counter = b"", b"", 1
    while len(okm) < length:
        block = hmac.new(prk, block + info + bytes([counter]),
                         hash_name).digest()
        okm += block
        counter += 1
    return okm[:length]


def fscrypt_hkdf(master_key, context, info, length):
    # fscrypt extracts with an all-zero salt of the hash length, and puts
    # "fscrypt\0" and a context byte before every info string.
    prk = hkdf_extract("sha512", bytes(64), master_key)
    return hkdf_expand("sha512", prk,
                       b"fscrypt\0" + bytes([context]) + info, length)


def expect(ok, what):
    # Not assert: the self-checks must also run under "python3 -O".
    if not ok:
        sys.exit("fscrypt-kat: self-check failed: " + what)


def selftest_hkdf():
    # RFC 5869, appendix A.1 (test case 1, SHA-256).
    prk = hkdf_extract("sha256", bytes(range(13)), b"\x0b" * 22)
    expect(prk.hex() == "077709362c2e32df0ddc3f0dc47bba63"
           "90b6c73bb50f9c3122ec844ad7c2b3e5", "RFC 5869 A.1 PRK")
    okm = hkdf_expand("sha256", prk, bytes(range(0xf0, 0xfa)), 42)
    expect(okm.hex() == "3cb25f25faacd57a90434f64d0362f2a"
           "2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865",
           "RFC 5869 A.1 OKM")


# ---- AES ----
def aes_encrypt(key, mode, data):
    # A 64-byte key with modes.XTS is AES-256-XTS; 32 with ECB is AES-256.
    enc = Cipher(algorithms.AES(key), mode).encryptor()
    return enc.update(data) + enc.finalize()


# ---- XChaCha12 (lib/crypto/chacha.c, crypto/chacha_generic.c) ----
def chacha_permute(x, nrounds):
    def qr(a, b, c, d):
        # add, xor, rotate: a += b, d ^= a, d <<<= 16; c += d, b ^= c, ...
        for s, t, u, r in ((a, b, d, 16), (c, d, b, 12), (a, b, d, 8),
                           (c, d, b, 7)):
            x[s] = (x[s] + x[t]) & MASK32
            v = x[u] ^ x[s]
            x[u] = ((v << r) | (v >> (32 - r))) & MASK32

    for _ in range(nrounds // 2):
        qr(0, 4, 8, 12), qr(1, 5, 9, 13), qr(2, 6, 10, 14), qr(3, 7, 11, 15)
        qr(0, 5, 10, 15), qr(1, 6, 11, 12), qr(2, 7, 8, 13), qr(3, 4, 9, 14)


def chacha_state(key, iv):
    return (list(struct.unpack("<4I", b"expand 32-byte k")) +
            list(struct.unpack("<8I", key)) + list(struct.unpack("<4I", iv)))


def xchacha_stream(key, iv, length, nrounds=12):
    # HChaCha turns the key and the first 128 nonce bits into a subkey.
    x = chacha_state(key, iv[:16])
    chacha_permute(x, nrounds)
    subkey = struct.pack("<8I", *(x[0:4] + x[12:16]))
    # The kernel's ChaCha IV is the 64-bit stream position (iv[24:32]) then
    # the remaining 64 nonce bits (iv[16:24]).
    state = chacha_state(subkey, iv[24:32] + iv[16:24])
    out = []
    for _ in range((length + 63) // 64):
        x = state[:]
        chacha_permute(x, nrounds)
        out.append(struct.pack("<16I", *((a + b) & MASK32
                                         for a, b in zip(x, state))))
        state[12] = (state[12] + 1) & MASK32
    return b"".join(out)[:length]


# ---- Poly1305 core and NHPoly1305 (crypto/nhpoly1305.c) ----
POLY1305_P = (1 << 130) - 5
NH_KEY_WORDS = 256 + 4 * 3      # 1024-byte messages, 4 passes, stride 2


def poly1305_key(raw):
    return int.from_bytes(raw, "little") & 0x0ffffffc0ffffffc0ffffffc0fffffff


def poly1305_blocks(h, r, data):
    # Full 16-byte blocks with the 2^128 pad bit; the kernel's core emits h
    # fully reduced and adds no final nonce, so we keep h reduced mod p.
    for i in range(0, len(data), 16):
        n = int.from_bytes(data[i:i + 16], "little") | (1 << 128)
        h = (h + n) * r % POLY1305_P
    return h


def nh(key_words, msg):
    # NH over up to 1024 bytes, as nh_generic(): pass p uses the key from
    # word 4 * p on, and the key advances 4 words per 16-byte unit.
    sums = [0, 0, 0, 0]
    for u in range(len(msg) // 16):
        m0, m1, m2, m3 = struct.unpack_from("<4I", msg, 16 * u)
        k = key_words[4 * u:4 * u + 16]
        for p in range(4):
            kp = k[4 * p:4 * p + 4]
            sums[p] += (((m0 + kp[0]) & MASK32) * ((m2 + kp[2]) & MASK32) +
                        ((m1 + kp[1]) & MASK32) * ((m3 + kp[3]) & MASK32))
    return struct.pack("<4Q", *(s & MASK64 for s in sums))


def nhpoly1305(key, msg):
    r = poly1305_key(key[:16])
    key_words = struct.unpack("<%dI" % NH_KEY_WORDS, key[16:])
    msg += bytes(-len(msg) % 16)    # the kernel zero-pads the last unit
    h = 0
    for off in range(0, len(msg), 1024):
        h = poly1305_blocks(h, r, nh(key_words, msg[off:off + 1024]))
    return h & MASK128


# ---- Adiantum (crypto/adiantum.c), encryption only ----
def adiantum_subkeys(key):
    # K_E || K_T || K_H = XChaCha12(K_S, nonce = 1 || 0^191) keystream.
    stream = xchacha_stream(key, b"\x01" + bytes(31),
                            32 + 16 + 16 + 4 * NH_KEY_WORDS)
    return stream[:32], poly1305_key(stream[32:48]), stream[48:]


def adiantum_encrypt(key, tweak, ptext):
    assert len(key) == 32 and len(tweak) == 32 and len(ptext) >= 16
    k_e, k_t, k_h = adiantum_subkeys(key)
    p_l, p_r = ptext[:-16], ptext[-16:]
    # H_T = Poly1305(bulk length in bits as 128 bits || tweak), reused by
    # both hash steps; everything is added in Z/2^128, little-endian.
    header = struct.pack("<QQ", len(p_l) * 8, 0)
    h_t = poly1305_blocks(0, k_t, header + tweak) & MASK128

    def hash_bulk(bulk):
        return (h_t + nhpoly1305(k_h, bulk)) & MASK128

    p_m = (int.from_bytes(p_r, "little") + hash_bulk(p_l)) & MASK128
    c_m = aes_encrypt(k_e, modes.ECB(), p_m.to_bytes(16, "little"))
    # The stream cipher nonce is C_M || le32(1) || 0, from stream position 0.
    iv = c_m + struct.pack("<I", 1) + bytes(12)
    stream = xchacha_stream(key, iv, len(p_l))
    c_l = (int.from_bytes(p_l, "little") ^ int.from_bytes(stream, "little")
           ).to_bytes(len(p_l), "little")
    c_r = (int.from_bytes(c_m, "little") - hash_bulk(c_l)) & MASK128
    return c_l + c_r.to_bytes(16, "little")


# crypto/testmgr.h, adiantum_xchacha12_aes_tv_template, the 31-byte vector:
# it reaches every step (NH with a padded unit, a partial stream block).
EMBEDDED_ADIANTUM_VECTOR = {
    "key": "362b5797f85dcd995f1a5a441d920f27cc16d72b856399d3ba96a1dbd26068da",
    "iv": "ef5869b12c5e9a4724c1b169e112938f433d6d00db5ed8d9129afed9ff2daac4",
    "ptext": "5ea8681985981223260accdb0a04b9df4db3487bb0e3c819435a4606942df2",
    "ctext": "c7c6f1738fc4ff4a39be78be8d28c8894663e70c7d87e84ec9187bbe186050",
}


def testmgr_adiantum_vectors(path):
    """The adiantum(xchacha12,aes) vectors of testmgr.h, as byte dicts."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start = text.index("adiantum_xchacha12_aes_tv_template[] = {")
    body = text[start:text.index("\n};", start)]
    field = re.compile(r'\.(key|iv|ptext|ctext)\s*=\s*((?:"[^"]*"\s*)+)')
    # Each field is a run of "\x.." string literals.
    return [{name: bytes.fromhex("".join(re.findall(r"\\x(..)", lits)))
             for name, lits in field.findall(entry)}
            for entry in body.split("}, {")]


def selftest_adiantum():
    emb = {k: bytes.fromhex(v) for k, v in EMBEDDED_ADIANTUM_VECTOR.items()}
    expect(adiantum_encrypt(emb["key"], emb["iv"], emb["ptext"]) ==
           emb["ctext"], "Adiantum, embedded 31-byte vector")
    if not os.path.exists(TESTMGR_H):
        print("warning: %s not found; Adiantum checked against the embedded"
              " vector only" % os.path.normpath(TESTMGR_H), file=sys.stderr)
        return
    vectors = testmgr_adiantum_vectors(TESTMGR_H)
    expect(len(vectors) >= 2, "fewer than 2 Adiantum vectors in testmgr.h")
    for i, v in enumerate(vectors):
        ct = adiantum_encrypt(v["key"], v["iv"], v["ptext"])
        expect(ct == v["ctext"], "Adiantum, testmgr.h vector %d (%d bytes)"
               % (i, len(v["ptext"])))


# ---- The known answers ----
MASTER_KEY = bytes(range(64))
NONCES = {"na": bytes(range(0xa0, 0xb0)), "nb": bytes([0x5a] * 16),
          "nc": bytes(15) + b"\x01"}
PLAINTEXT = bytes((i * 29 + (i >> 8)) & 0xff for i in range(4096))
SHORT_PLAINTEXT = PLAINTEXT[:1000] + bytes(8)


def known_answers():
    """(name, comment, value) for every array the suite pastes."""
    def hkdf(context, info, length):
        return fscrypt_hkdf(MASTER_KEY, context, info, length)

    out = [("kat_extent_key_" + n, "per-extent key, AES-256-XTS, nonce " +
            n.upper(), hkdf(HKDF_CONTEXT_PER_EXTENT_KEY, nonce, 64))
           for n, nonce in NONCES.items()]
    adiantum_key = hkdf(HKDF_CONTEXT_DIRECT_KEY,
                        bytes([FSCRYPT_MODE_ADIANTUM]), 32)
    out += [("kat_direct_key_adiantum", "DIRECT_KEY per-mode key, Adiantum",
             adiantum_key),
            ("kat_master_key_identifier", "master key identifier",
             hkdf(HKDF_CONTEXT_KEY_IDENTIFIER, b"", 16))]

    # The IV is the block index within the extent (DIRECT_KEY: then the
    # nonce), little-endian, zero-padded to the tweak size.
    xts_tweak = struct.pack("<Q", 5) + bytes(8)
    cts = [("xts", "AES-256-XTS, key NA, block 5",
            aes_encrypt(out[0][2], modes.XTS(xts_tweak), PLAINTEXT))]
    for name, lblk, n in (("adiantum", 7, "nb"), ("adiantum0", 0, "nc")):
        tweak = struct.pack("<Q", lblk) + NONCES[n] + bytes(8)
        cts.append((name, "Adiantum DIRECT_KEY, block %d, nonce %s" %
                    (lblk, n.upper()),
                    adiantum_encrypt(adiantum_key, tweak, PLAINTEXT)))
    # A short extent (an inline extent of btrfs): P's first 1000 bytes,
    # zero-padded to 1008, one data unit with the IV of block 0.
    cts.append(("xts_short", "AES-256-XTS, key NA, short extent",
                aes_encrypt(out[0][2], modes.XTS(bytes(16)), SHORT_PLAINTEXT)))
    cts.append(("adiantum_short", "Adiantum DIRECT_KEY, nonce NC, short extent",
                adiantum_encrypt(adiantum_key, bytes(8) + NONCES["nc"] +
                                 bytes(8), SHORT_PLAINTEXT)))
    for name, what, ct in cts:
        out.append(("kat_%s_ct_head" % name, what + ": first 32 bytes",
                    ct[:32]))
        out.append(("kat_%s_ct_sha256" % name, what + ": SHA-256 of the "
                    "%d bytes" % len(ct), hashlib.sha256(ct).digest()))
    return out


def c_array(name, comment, value):
    lines = ["/* %s */" % comment,
             "static const u8 %s[%d] = {" % (name, len(value))]
    for i in range(0, len(value), 8):
        lines.append("\t" + " ".join("0x%02x," % b for b in value[i:i + 8]))
    lines.append("};")
    return "\n".join(lines)


def inputs_comment():
    def hexlines(label, value):
        h = value.hex()
        return [" *   %s %s" % (label if i == 0 else " " * len(label),
                                 h[i:i + 32]) for i in range(0, len(h), 32)]
    lines = ["/*", " * Known answers from tools/fscrypt-kat.py; regenerate"
             " with", " * /usr/bin/python3 tools/fscrypt-kat.py", " *",
             " * Inputs:"]
    lines += hexlines("master key M =", MASTER_KEY)
    for n, nonce in NONCES.items():
        lines += hexlines("nonce %s      =" % n.upper(), nonce)
    lines += [" *   plaintext P[i] = (i * 29 + (i >> 8)) & 0xff, 4096 bytes",
              " *   XTS tweak       = le64(5) || 0^64, key kat_extent_key_na",
              " *   Adiantum tweak  = le64(7) || NB || 0^64,"
              " key kat_direct_key_adiantum",
              " *   Adiantum0 tweak = le64(0) || NC || 0^64, same key",
              " *   short extents: P[0..999] || 0^64 (1008 bytes), tweak of"
              " block 0",
              " */"]
    return "\n".join(lines)


def parse_c_arrays(text):
    """{name: bytes} for every `static const u8 NAME[...] = { ... };`."""
    text = re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)
    arrays = {}
    for name, body in re.findall(r"static\s+const\s+u8\s+(\w+)\s*\[[^\]]*\]"
                                 r"\s*=\s*\{([^}]*)\}\s*;", text):
        toks = [t.strip() for t in body.split(",") if t.strip()]
        try:
            arrays[name] = bytes(int(t, 0) for t in toks)
        except ValueError:
            arrays[name] = None     # not plain numbers: counts as differing
    return arrays


def check_file(path, answers):
    try:
        with open(path, encoding="utf-8") as f:
            found = parse_c_arrays(f.read())
    except OSError as e:
        print("fscrypt-kat: %s" % e, file=sys.stderr)
        return 1
    bad = 0
    for name, _, value in answers:
        if found.get(name, b"") != value:
            why = "differs from the computed value" if name in found \
                else "missing"
            print("%s: %s: %s" % (path, name, why), file=sys.stderr)
            bad += 1
    if bad:
        print("%s: %d of %d known answers wrong or missing; regenerate with"
              " tools/fscrypt-kat.py" % (path, bad, len(answers)),
              file=sys.stderr)
        return 1
    print("%s: all %d known answers match" % (path, len(answers)))
    return 0


def main(argv):
    if len(argv) not in (1, 3) or (len(argv) == 3 and argv[1] != "--check"):
        print("usage: %s [--check FILE]" % argv[0], file=sys.stderr)
        return 2
    selftest_hkdf()
    selftest_adiantum()
    answers = known_answers()
    if len(argv) == 3:
        return check_file(argv[2], answers)
    print(inputs_comment())
    for name, comment, value in answers:
        print()
        print(c_array(name, comment, value))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""CRC-32 of byte runs that exercise every alignment and tail length of the word-at-a-time reader.

The bytes are a fixed pattern, byte i = ((i * 2654435761) mod 2**32) >> 24, that the test regenerates; each
case is a run [offset, offset + length) of it, and the checksum is Python's zlib.crc32 (the one zip uses).
Writes test/fixtures/npz/crc32.json. Run from the repository root: python3 scripts/fixtures_crc32.py
"""
import json
import os
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, 'test', 'fixtures', 'npz')
os.makedirs(OUT, exist_ok=True)

SIZE = 70_000
data = bytes((((i * 2654435761) & 0xFFFFFFFF) >> 24) for i in range(SIZE))
cases = []
for offset in range(8):
    for length in list(range(0, 40)) + [63, 64, 65, 1000, 1001, 1002, 1003, 65536 + 5, SIZE - 8]:
        cases.append({'offset': offset, 'length': length, 'crc': zlib.crc32(data[offset:offset + length])})
with open(os.path.join(OUT, 'crc32.json'), 'w') as f:
    json.dump({'size': SIZE, 'pattern': '((i * 2654435761) mod 2**32) >> 24', 'cases': cases}, f)
print(f'{len(cases)} cases')

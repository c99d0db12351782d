#!/usr/bin/env python3
"""Regenerates every committed oracle fixture: runs each scripts/fixtures_*.py, then scripts/gltf_interpolation.py."""
import glob
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
scripts = sorted(glob.glob(os.path.join(HERE, "fixtures_*.py"))) + [os.path.join(HERE, "gltf_interpolation.py")]
for script in scripts:
    print(f"== {os.path.basename(script)}", flush=True)
    subprocess.run([sys.executable, script], check=True)

import sys
from pathlib import Path

# Lets tests import the shared models (test/models.py).
sys.path.insert(0, str(Path(__file__).parent))

"""``python -m engramdb``: the ``engramdb`` command line."""
from .cli import main

if __name__ == "__main__":
    main()

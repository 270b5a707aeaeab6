"""A model module that calls sys.exit() when imported: the audit says it cannot import it."""

import sys

sys.exit(4)


def predict(texts):  # never reached
    return [0.0 for _ in texts]

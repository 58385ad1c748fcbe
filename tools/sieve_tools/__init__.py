"""sieve-tools: make and compare ONNX model folders for Sieve (`sieve-export`)."""

__version__ = "0.1.0"

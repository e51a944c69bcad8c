"""Stand-in for psutil, which the artifact imports (utils_gavel.py) but Sia runs never call."""

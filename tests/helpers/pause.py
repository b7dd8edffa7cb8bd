#!/usr/bin/env python3
"""Stop a process for a while, as a stalled server would be: pause.py PID DELAY_S PAUSE_S.

Sleeps DELAY_S, sends SIGSTOP, sleeps PAUSE_S, sends SIGCONT, and prints the pause as it
happened (seconds between the two signals, CLOCK_MONOTONIC): the truth a test computes from.
"""
import os
import signal
import sys
import time

pid, delay, pause = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
time.sleep(delay)
t0 = time.monotonic()
os.kill(pid, signal.SIGSTOP)
time.sleep(pause)
os.kill(pid, signal.SIGCONT)
t1 = time.monotonic()
print(f"{t1 - t0:.6f}")

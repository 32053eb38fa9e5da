# Runs a command on a pseudo-terminal for the TTY tests: waits for expected text before typing each
# answer (typing earlier would let the terminal echo it before the program turns echo off), then
# collects everything the program wrote. Prints one JSON object: {"output": ..., "code": N}.
# usage: python3 pty-run.py '{"argv": [...], "env": {...}, "steps": [{"expect": "text"}, {"send": "text"}], "timeout": 30, "cwd": "dir"}'
# Steps: expect (wait for text), send (type), sleep (seconds), waitfile (wait until a file exists), signal,
# hangup (close the terminal; then only the exit code is collected).
import json, os, pty, select, signal, sys, time

spec = json.loads(sys.argv[1])
deadline = time.time() + spec.get("timeout", 30)
pid, fd = pty.fork()
if pid == 0:
    if "cwd" in spec:
        os.chdir(spec["cwd"])
    os.execvpe(spec["argv"][0], spec["argv"], spec["env"])

out = b""
def read_some(wait):
    global out
    r, _, _ = select.select([fd], [], [], wait)
    if not r:
        return True
    try:
        data = os.read(fd, 65536)
    except OSError:
        return False
    if not data:
        return False
    out += data
    return True

seen = 0
alive = True
for step in spec.get("steps", []):
    if "expect" in step:
        want = step["expect"].encode()
        while alive and out.find(want, seen) == -1 and time.time() < deadline:
            alive = read_some(0.1)
        found = out.find(want, seen)
        if found == -1:
            break
        seen = found + len(want)
    elif "send" in step:
        os.write(fd, step["send"].encode())
    elif "sleep" in step:
        time.sleep(step["sleep"])
    elif "waitfile" in step:
        while not os.path.exists(step["waitfile"]) and time.time() < deadline:
            read_some(0.05)
    elif "hangup" in step:
        # The terminal goes away: closing the master side makes the kernel send SIGHUP to the session.
        os.close(fd)
        alive = False
        break
    elif "signal" in step:
        os.kill(pid, getattr(signal, step["signal"]))

status = None
while time.time() < deadline:
    if alive:
        alive = read_some(0.1)
    else:
        time.sleep(0.05)
    done, st = os.waitpid(pid, os.WNOHANG)
    if done:
        status = st
        while alive and read_some(0.05):
            pass
        break
if status is None:
    os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
code = os.waitstatus_to_exitcode(status)
print(json.dumps({"output": out.decode("utf-8", "replace"), "code": code}))

# One image for every role of Bao Arena (web, worker, beat, one-shot migrate); the compose file
# picks the command. Debian bookworm's own Python 3.11 at /usr/bin/python3: the interpreter the
# engine sandbox gives Python engines (engines/sandbox/state.py, ENGINE_PYTHON), so the service
# and the engines share it. The service's packages live in a venv on top of it.
FROM debian:bookworm-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    BAO_VAR_DIR=/var/lib/bao-arena \
    PATH=/opt/venv/bin:$PATH

# The runtimes workers promise engines (docs/runtimes.md; tests/test_dockerfile_runtimes.py
# checks that this list and the table there agree), one package a line:
# python3 (also the service's own interpreter), nodejs, openjdk-17-jre-headless (Java 17),
# libc6 and libstdc++6 (C and C++ binaries). bubblewrap: the sandbox of engine processes
# (engines/sandbox/). python3-venv: the service's venv. libpq is not needed: psycopg[binary]
# ships its own. The man directory: a JDK's postinst links its man pages there, and the slim
# image has none.
RUN mkdir -p /usr/share/man/man1 \
    && apt-get update \
    && apt-get install -y --no-install-recommends \
        bubblewrap \
        libc6 \
        libstdc++6 \
        nodejs \
        openjdk-17-jre-headless \
        python3 \
        python3-venv \
    && rm -rf /var/lib/apt/lists/* \
    && python3 -m venv /opt/venv

WORKDIR /app
COPY requirements.txt ./
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
RUN mkdir -p "$BAO_VAR_DIR" && python manage.py collectstatic --no-input -v 0

EXPOSE 8000
CMD ["gunicorn", "arena.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3"]

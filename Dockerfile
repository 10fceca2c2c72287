# One image for every role of Bao Arena (web, worker, beat, one-shot migrate); the compose file
# picks the command. Python 3.11 as in development; bubblewrap is the engine sandbox.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    BAO_VAR_DIR=/var/lib/bao-arena

# bubblewrap: the sandbox of engine processes (engines/sandbox/).
# libpq is not needed: psycopg[binary] ships its own.
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY requirements.txt ./
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
RUN mkdir -p "$BAO_VAR_DIR" && python manage.py collectstatic --no-input -v 0

EXPOSE 8000
CMD ["gunicorn", "arena.wsgi", "--bind", "0.0.0.0:8000", "--workers", "3"]

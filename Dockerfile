# posenc explorer: the Streamlit app on port 8501.
#   docker build -t posenc .
#   docker run --rm -p 8501:8501 posenc      # then open http://localhost:8501
FROM python:3.11-slim

# No .pyc files, logs straight to `docker logs`. The code in the image never changes,
# so Streamlit need not watch its files (the watchers cost CPU in every session).
# MALLOC_ARENA_MAX=2: every Streamlit session runs its script in a thread, and glibc gives
# threads their own malloc arenas; with two, the server's memory after 100 sessions at
# d_model=1024/length=4096 is ~245 MB instead of ~435 MB (BENCHMARKS.md).
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    STREAMLIT_SERVER_FILE_WATCHER_TYPE=none \
    MALLOC_ARENA_MAX=2

# The app runs as an unprivileged user (numeric id, so runAsNonRoot can check it);
# the code stays root-owned and read-only to that user.
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin streamlit

WORKDIR /app

# torch==2.13.0 from PyPI is the CUDA build on Linux and pulls several GB of nvidia-* wheels.
# PyTorch's CPU index publishes the same release as "2.13.0+cpu". Under PEP 440 the pin
# "torch==2.13.0" matches "2.13.0+cpu" (a local label is ignored when the pin has none),
# and pip prefers it because "2.13.0+cpu" sorts after "2.13.0": so requirements.txt stays
# unchanged and the image gets the CPU wheel. Installed before the code is copied, so
# editing the app does not redo this layer.
COPY requirements.txt .
RUN pip install --no-cache-dir \
        --extra-index-url https://download.pytorch.org/whl/cpu \
        -r requirements.txt

# Only what `streamlit run app.py` needs (.dockerignore keeps the rest out of the context).
COPY app.py .
COPY posenc/ posenc/
COPY pages/ pages/
COPY .streamlit/config.toml .streamlit/config.toml

USER 10001
EXPOSE 8501

# slim has no curl: ask the server's own health route with the standard library.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(0 if urllib.request.urlopen('http://localhost:8501/_stcore/health', timeout=4).status == 200 else 1)"]

CMD ["streamlit", "run", "app.py", "--server.port=8501", "--server.address=0.0.0.0"]

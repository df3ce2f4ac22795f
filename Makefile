# The two commands of the README, plus the helpers later labs add.
.PHONY: lab test setup check vagrant-check

lab:    ## set up what is missing, start the mini cluster, open JupyterLab on labs/
	bash cephlab/bootstrap.sh lab

test:   ## set up what is missing, run every test (models, oracles, cluster, notebooks)
	bash cephlab/bootstrap.sh test

check:  ## the fast loop (about a minute): ruff, mypy and the pure tests; no cluster, no OS packages
	bash cephlab/bootstrap.sh check

setup:  ## only install the OS packages and the .venv the labs need (no test tools)
	bash cephlab/bootstrap.sh setup

.PHONY: lock
lock:   ## renew constraints.txt (the pinned Python packages) with the newest versions pyproject.toml allows; then run make test
	bash cephlab/bootstrap.sh lock

.PHONY: solutions student
solutions: ## rebuild solutions/*.ipynb from their .py sources and execute them on the lab cluster
	.venv/bin/jupytext --update --to ipynb solutions/[0-9][0-9]-*.py
	.venv/bin/python -m cephlab.course.notebooks execute

student: ## regenerate the student notebooks in labs/ from solutions/ (otter-grader assign)
	.venv/bin/python -m cephlab.course.notebooks student

vagrant-check:  ## 3-node cephadm cluster in Vagrant: up, API smoke test, labs 01 and 08, destroy (needs KVM/VirtualBox; 25-45 min)
	bash vagrant/up-and-check.sh

.PHONY: image
image:  ## the lab's OCI image (JupyterLab, the student labs, the mini cluster) from the student release; container/README.md
	bash container/build.sh

.PHONY: book
book:   ## the course site (solutions with their outputs, instructor guide, references) in book/_build/html/
	bash cephlab/bootstrap.sh venv --test
	.venv/bin/python book/build_book.py

.PHONY: book-instructor book-learner release
book-instructor: book  ## the instructor site (= make book)

book-learner: ## the learners' course site (student notebooks: no answers, no hidden tests, no guide) in build/learner-site/_build/html/
	bash cephlab/bootstrap.sh venv --test
	.venv/bin/python book/build_book.py --audience learner

release: ## the student release (no solutions, no hidden tests) in build/release/ceph-storage-lab/ and its .tar.gz to publish
	.venv/bin/cephlab release build/release/ceph-storage-lab --archive

"""The Vagrant backend: cephadm in VMs (vagrant/), reached through the conf `vagrant up` exports."""
